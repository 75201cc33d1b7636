use gpu_prims_benches::report::{plots, PeerCell, Row};
use gpu_prims_benches::stats::Stats;
fn row(
    p: &str,
    a: &str,
    v: &str,
    n: usize,
    param: Option<(&str, u64)>,
    ms: f64,
    copy_ms: f64,
    bytes: u64,
) -> Row {
    Row {
        primitive: p.into(),
        algorithm: a.into(),
        variant: v.into(),
        dtype: "f32".into(),
        n,
        param: param.map(|(k, v)| (k.to_string(), v)),
        kind: "gpu".into(),
        bytes,
        time: Stats::from_ms(vec![ms]),
        copy: Stats::from_ms(vec![copy_ms]),
        copy_bytes: 8 * n as u64,
        rayon_ms: None,
        correct: Some(true),
        note: String::new(),
        peers: vec![PeerCell {
            library: "torch".into(),
            ms: Some(ms * 1.3),
            copy_fraction: Some(0.7),
            note: String::new(),
        }],
    }
}
fn main() {
    let mut rows = vec![];
    for k in [10u32, 16, 20, 24, 28, 30] {
        let n = 1usize << k;
        let copy = 8.0 * n as f64 / 3.0e9 * 1e3 + 0.002;
        for (a, f) in [("auto", 1.05), ("tree", 0.7), ("two_pass", 0.9)] {
            rows.push(row(
                "reduce",
                a,
                "sum",
                n,
                None,
                copy / 2.0 / f,
                copy,
                4 * n as u64,
            ));
        }
    }
    for b in [32u64, 64, 128, 256, 512, 1024] {
        let n = 123123123usize;
        let copy = 8.0 * n as f64 / 3.0e9 * 1e3;
        rows.push(row(
            "scan",
            "blelloch",
            "inclusive sum",
            n,
            Some(("block", b)),
            copy * (1.0 + 64.0 / b as f64),
            copy,
            8 * n as u64,
        ));
        rows.push(row(
            "scan",
            "hillis_steele",
            "inclusive sum",
            n,
            Some(("block", b)),
            copy * (2.0 + 32.0 / b as f64),
            copy,
            8 * n as u64,
        ));
    }
    for w in [3u64, 7, 31, 127] {
        let n = 1usize << 28;
        let copy = 8.0 * n as f64 / 3.0e9 * 1e3;
        rows.push(row(
            "conv1d",
            "auto",
            "same zero",
            n,
            Some(("w", w)),
            copy * (1.0 + w as f64 / 100.0),
            copy,
            8 * n as u64,
        ));
        rows.push(row(
            "conv1d",
            "basic",
            "same zero",
            n,
            Some(("w", w)),
            copy * (1.0 + w as f64 / 10.0),
            copy,
            8 * n as u64,
        ));
    }
    std::fs::create_dir_all("/tmp/plots").unwrap();
    for (name, svg) in plots::all(&rows, None) {
        std::fs::write(format!("/tmp/plots/{name}"), svg).unwrap();
        println!("{name}");
    }
}
