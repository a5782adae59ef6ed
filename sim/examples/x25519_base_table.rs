//! Prints `kernels/arm/x25519/base_table.c`, the signed-window table of the `x25519.base` kernel:
//! `cargo run -p pqhelium-sim --example x25519_base_table > kernels/arm/x25519/base_table.c`.

fn main() {
    print!("{}", pqhelium_sim::x25519_fe::base_table_c_source());
}
