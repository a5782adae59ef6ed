//! Host code that campaigns run for every case, compiled a second time for AVX2 and chosen when the CPU has it.
//!
//! The build targets x86-64-v2 (`.cargo/config.toml`) so that it runs on every x86-64 CPU since 2009; with 256-bit
//! vectors and three-operand encodings the reference and model NTTs run about a third faster. Integer code only:
//! which instructions compute them does not change the results.

/// Defines `fn $name($args) -> $ret` as a call of `$body` (an `#[inline(always)]` function with the same
/// parameters), through a copy compiled with AVX2 when this CPU has it (the check is one cached load).
#[macro_export]
macro_rules! avx2_when_present {
    ($(#[$meta:meta])* $vis:vis fn $name:ident($($arg:ident: $ty:ty),* $(,)?) $(-> $ret:ty)? = $body:path;) => {
        $(#[$meta])*
        $vis fn $name($($arg: $ty),*) $(-> $ret)? {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx2")]
                unsafe fn with_avx2($($arg: $ty),*) $(-> $ret)? {
                    $body($($arg),*)
                }
                if ::std::is_x86_feature_detected!("avx2") {
                    // SAFETY: this CPU has AVX2, the one feature the copy was compiled for.
                    return unsafe { with_avx2($($arg),*) };
                }
            }
            $body($($arg),*)
        }
    };
}
