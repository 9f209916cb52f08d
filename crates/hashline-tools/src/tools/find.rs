//! `find` (SPEC §5.3).
