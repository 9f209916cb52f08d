#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| hashline_fuzz::tool_args(data));
