//! `ls` (SPEC §5.3).
