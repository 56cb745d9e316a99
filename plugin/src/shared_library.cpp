// The shared library is warpmatch_core linked whole; this file gives the target a source.
