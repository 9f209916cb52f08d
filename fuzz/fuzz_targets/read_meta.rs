#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| hashline_fuzz::read_meta(data));
