//! Host code that campaigns run for every case, compiled twice more, for AVX-512 (BW and VL) and for AVX2: the copy
//! for the widest vectors this CPU has is chosen at run time.
//!
//! The build targets x86-64-v2 (`.cargo/config.toml`) so that it runs on every x86-64 CPU since 2009; with 256-bit
//! vectors and three-operand encodings the reference and model NTTs run about a third faster, and AVX-512's 16-bit
//! lanes and masks take another tenth off an ML-KEM campaign's host work per case (`docs/benchmarks.md`). Integer
//! code only: which instructions compute them does not change the results.

/// Defines `fn $name($args) -> $ret` as a call of `$body` (an `#[inline(always)]` function with the same
/// parameters), through a copy compiled for AVX-512 or AVX2 when this CPU has it (each check is one cached load).
#[macro_export]
macro_rules! with_widest_vectors {
    ($(#[$meta:meta])* $vis:vis fn $name:ident($($arg:ident: $ty:ty),* $(,)?) $(-> $ret:ty)? = $body:path;) => {
        $(#[$meta])*
        $vis fn $name($($arg: $ty),*) $(-> $ret)? {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx512f,avx512bw,avx512vl")]
                unsafe fn with_avx512($($arg: $ty),*) $(-> $ret)? {
                    $body($($arg),*)
                }
                #[target_feature(enable = "avx2")]
                unsafe fn with_avx2($($arg: $ty),*) $(-> $ret)? {
                    $body($($arg),*)
                }
                if ::std::is_x86_feature_detected!("avx512bw") && ::std::is_x86_feature_detected!("avx512vl") {
                    // SAFETY: this CPU has AVX-512 BW and VL (and so F), the features the copy was compiled for.
                    return unsafe { with_avx512($($arg),*) };
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
