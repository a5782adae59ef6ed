//! `pqhelium list` prints the contracts from the registry's data: as text, as JSON for tools (every argument's type,
//! length, direction, bounds, representation, modulus and secrecy), and as Markdown, which is docs/kernels.md: the
//! committed file must be the current output.

use std::process::Command;

use pqhelium_families::{self as registry, Checked};

fn list(flag: Option<&str>) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_pqhelium")).arg("list").args(flag).output().expect("run pqhelium");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("UTF-8")
}

#[test]
fn docs_kernels_md_is_the_current_listing() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/kernels.md");
    let committed = std::fs::read_to_string(path).unwrap_or_default();
    let current = list(Some("--markdown"));
    assert!(
        committed == current,
        "docs/kernels.md is not the registry's current listing: regenerate it with \
         `cargo run --bin pqhelium -- list --markdown > docs/kernels.md`"
    );
    for k in registry::all() {
        assert!(current.contains(&format!("\n## {}\n", k.id)), "{} has no section", k.id);
    }
}

#[test]
fn json_carries_every_arguments_contract() {
    let json: serde_json::Value = serde_json::from_str(&list(Some("--json"))).expect("JSON");
    assert_eq!(json["schema"], "pqhelium-contracts/1");
    let kernels = json["kernels"].as_array().expect("kernels");
    assert_eq!(kernels.len(), registry::all().count());
    for (k, entry) in registry::all().zip(kernels) {
        assert_eq!(entry["id"], k.id);
        let args = entry["args"].as_array().expect("args");
        assert_eq!(args.len(), k.args.len(), "{}", k.id);
        for (spec, arg) in k.args.iter().zip(args) {
            assert_eq!(arg["name"], spec.name);
            assert_eq!(arg["type"], spec.elem.name(), "{} {}", k.id, spec.name);
            assert_eq!(arg["direction"], spec.dir.name(), "{} {}", k.id, spec.name);
            assert!(!arg["length"].is_null() && arg["representation"].is_string() && arg["secret"].is_boolean());
            assert_eq!(arg["input"].is_null(), spec.input.is_none(), "{} {}", k.id, spec.name);
            assert_eq!(arg["output"].is_null(), spec.output.is_none(), "{} {}", k.id, spec.name);
            // The modulus only on residues mod q, with the form their values are in.
            let modulus = spec.modulus.map(|m| serde_json::to_value(m).unwrap());
            assert_eq!(arg.get("modulus").cloned(), modulus, "{} {}", k.id, spec.name);
        }
    }
    let checked = |id: &str| kernels.iter().find(|k| k["id"] == id).map(|k| k["checked"].clone());
    assert_eq!(checked("fndsa.fpu.ldl.emu"), Some("two-way".into()));
    assert_eq!(checked("fndsa.emu.f64.add"), Some("two-way".into()));
    assert_eq!(checked("keccak.f1600"), Some("three-way".into()));
    assert_eq!(checked("xwing.scheme"), Some("model-only".into()));
    let two_way = registry::all().filter(|k| k.checked == Checked::TwoWay).count();
    assert_eq!(kernels.iter().filter(|k| k["checked"] == "two-way").count(), two_way);
    // One argument in full: the ML-KEM forward NTT's polynomial.
    let fwd = kernels.iter().find(|k| k["id"] == "mlkem.ntt.fwd").expect("mlkem.ntt.fwd");
    assert_eq!(
        fwd["args"][0],
        serde_json::json!({
            "name": "p",
            "type": "i16",
            "length": { "fixed": 256 },
            "direction": "inout",
            "input": { "range": { "lo": -8192, "hi": 8192 } },
            "output": { "range": { "lo": -23588, "hi": 23588 } },
            "representation": "mve-order",
            "modulus": { "q": 3329, "form": "plain" },
            "secret": true
        })
    );
    // A polynomial kernel's residues and its encoding's bytes.
    let compress = kernels.iter().find(|k| k["id"] == "mlkem.compress.du10.scalar").expect("compress");
    assert_eq!(compress["args"][1]["modulus"], serde_json::json!({ "q": 3329, "form": "plain" }));
    assert!(compress["args"][0].get("modulus").is_none());
    let pointwise = kernels.iter().find(|k| k["id"] == "fndsa.ntt512.pointwise").expect("pointwise");
    assert_eq!(pointwise["args"][2]["modulus"]["q"], 12289);
    // The Montgomery form's shape, as docs/kernels.md states it (no registered contract uses it yet).
    assert_eq!(
        serde_json::to_value(registry::Modulus::montgomery(3329, 16)).unwrap(),
        serde_json::json!({ "q": 3329, "form": "montgomery", "log2_r": 16 })
    );
    assert_eq!(fwd["prototype"], "void mlkem_ntt_fwd_mve(int16_t p[256])");
}

#[test]
fn text_names_every_kernel_its_arguments_and_the_backends() {
    let text = list(None);
    for k in registry::all() {
        assert!(text.contains(&format!("  {} (", k.id)), "{} missing", k.id);
    }
    assert!(
        text.contains("      p i16[256] inout: in |x| <= 8192, out |x| <= 23588, mve-order, mod 3329, secret"),
        "{text}"
    );
    assert!(text.contains("      out u8[320] out: in -, out any, fips203, public"), "{text}");
    assert!(text.contains("checked two ways: reference == object code"));
    assert!(text.contains("backends:"));
}
