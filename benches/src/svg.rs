//! Hand-written SVG line charts: axes with labels, a log2 or linear x axis, a linear y axis from
//! zero, one polyline with markers per series, and a legend.

use std::fmt::Write as _;

/// One line of a chart.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Legend text.
    pub name: String,
    /// (x, y) points; drawn in x order.
    pub points: Vec<(f64, f64)>,
    /// Drawn dashed (reference lines such as the copy).
    pub dashed: bool,
}

impl Series {
    /// A solid line.
    pub fn new(name: impl Into<String>, points: Vec<(f64, f64)>) -> Self {
        Series {
            name: name.into(),
            points,
            dashed: false,
        }
    }

    /// A dashed line.
    pub fn dashed(name: impl Into<String>, points: Vec<(f64, f64)>) -> Self {
        Series {
            dashed: true,
            ..Series::new(name, points)
        }
    }
}

/// How the x axis is scaled and labelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum XAxis {
    /// log2 scale, ticks at powers of two labelled `2^k`.
    Log2Pow,
    /// log2 scale, ticks at the data's x values labelled as plain numbers (block sizes, widths).
    Log2Values,
    /// Linear scale.
    Linear,
}

/// A line chart.
#[derive(Debug, Clone, PartialEq)]
pub struct Chart {
    /// Title above the plot.
    pub title: String,
    /// x axis label.
    pub x_label: String,
    /// y axis label.
    pub y_label: String,
    /// x axis scale.
    pub x_axis: XAxis,
    /// The lines.
    pub series: Vec<Series>,
}

const PALETTE: [&str; 12] = [
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
    "#bcbd22", "#7f7f7f", "#393b79", "#637939",
];

const W: f64 = 900.0;
const H: f64 = 520.0;
const LEFT: f64 = 80.0;
const RIGHT: f64 = 260.0;
const TOP: f64 = 50.0;
const BOTTOM: f64 = 60.0;

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A "nice" step (1, 2 or 5 × 10^k) giving about `target` intervals up to `max`.
fn nice_step(max: f64, target: f64) -> f64 {
    let raw = (max / target).max(f64::MIN_POSITIVE);
    let mag = 10f64.powf(raw.log10().floor());
    let f = raw / mag;
    let nice = if f <= 1.0 {
        1.0
    } else if f <= 2.0 {
        2.0
    } else if f <= 5.0 {
        5.0
    } else {
        10.0
    };
    nice * mag
}

fn fmt_tick(v: f64) -> String {
    if v == 0.0 {
        "0".into()
    } else if v.abs() >= 100.0 || v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        let s = format!("{v:.2}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

impl Chart {
    /// The chart as an SVG document. Points with non-finite or (on a log axis) non-positive
    /// coordinates are left out; an empty chart says "no data".
    pub fn to_svg(&self) -> String {
        let log = !matches!(self.x_axis, XAxis::Linear);
        let tx = |x: f64| if log { x.log2() } else { x };
        type Drawn<'s> = (usize, &'s Series, Vec<(f64, f64)>);
        let series: Vec<Drawn<'_>> = self
            .series
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let mut pts: Vec<(f64, f64)> = s
                    .points
                    .iter()
                    .copied()
                    .filter(|&(x, y)| x.is_finite() && y.is_finite() && (!log || x > 0.0))
                    .collect();
                pts.sort_by(|a, b| a.0.total_cmp(&b.0));
                (i, s, pts)
            })
            .filter(|(_, _, p)| !p.is_empty())
            .collect();

        let mut svg = String::new();
        let _ = writeln!(
            svg,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" font-family="sans-serif" font-size="12">"#
        );
        let _ = writeln!(svg, r#"<rect width="{W}" height="{H}" fill="white"/>"#);
        let _ = writeln!(
            svg,
            r#"<text x="{}" y="28" text-anchor="middle" font-size="16" font-weight="bold">{}</text>"#,
            (LEFT + W - RIGHT) / 2.0,
            esc(&self.title)
        );
        let (pw, ph) = (W - LEFT - RIGHT, H - TOP - BOTTOM);
        if series.is_empty() {
            let _ = writeln!(
                svg,
                r##"<text x="{}" y="{}" text-anchor="middle" fill="#888">no data</text></svg>"##,
                LEFT + pw / 2.0,
                TOP + ph / 2.0
            );
            return svg;
        }
        let xs: Vec<f64> = series
            .iter()
            .flat_map(|(_, _, p)| p.iter().map(|&(x, _)| x))
            .collect();
        let (mut x0, mut x1) = xs
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| {
                (a.min(tx(x)), b.max(tx(x)))
            });
        if x1 - x0 < 1e-9 {
            x0 -= 1.0;
            x1 += 1.0;
        }
        let ymax_data = series
            .iter()
            .flat_map(|(_, _, p)| p.iter().map(|&(_, y)| y))
            .fold(0.0f64, f64::max);
        let step = nice_step(if ymax_data > 0.0 { ymax_data } else { 1.0 }, 6.0);
        let ymax = ((ymax_data / step).ceil() * step).max(step);
        let px = |x: f64| LEFT + (tx(x) - x0) / (x1 - x0) * pw;
        let py = |y: f64| TOP + ph - (y.max(0.0) / ymax) * ph;

        // Grid, y ticks.
        let mut k = 0.0;
        while k <= ymax + step * 1e-6 {
            let y = py(k);
            let _ = writeln!(
                svg,
                r##"<line x1="{LEFT}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="#e5e5e5"/><text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"##,
                LEFT + pw,
                LEFT - 6.0,
                y + 4.0,
                fmt_tick(k)
            );
            k += step;
        }
        // x ticks.
        let mut ticks: Vec<(f64, String)> = Vec::new();
        match self.x_axis {
            XAxis::Log2Pow => {
                let (a, b) = (x0.ceil() as i64, x1.floor() as i64);
                let every = ((b - a) / 12 + 1).max(1);
                for e in (a..=b).filter(|e| (e - a) % every == 0) {
                    ticks.push((2f64.powi(e as i32), format!("2^{e}")));
                }
            }
            XAxis::Log2Values | XAxis::Linear => {
                let mut v = xs.clone();
                v.sort_by(f64::total_cmp);
                v.dedup();
                for x in v {
                    ticks.push((x, fmt_tick(x)));
                }
            }
        }
        for (x, label) in &ticks {
            let cx = px(*x);
            let _ = writeln!(
                svg,
                r##"<line x1="{cx:.1}" y1="{TOP}" x2="{cx:.1}" y2="{:.1}" stroke="#f0f0f0"/><text x="{cx:.1}" y="{:.1}" text-anchor="middle">{}</text>"##,
                TOP + ph,
                TOP + ph + 18.0,
                esc(label)
            );
        }
        // Axes and labels.
        let _ = writeln!(
            svg,
            r#"<rect x="{LEFT}" y="{TOP}" width="{pw}" height="{ph}" fill="none" stroke="black"/>"#
        );
        let _ = writeln!(
            svg,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            LEFT + pw / 2.0,
            H - 18.0,
            esc(&self.x_label)
        );
        let _ = writeln!(
            svg,
            r#"<text x="20" y="{:.1}" text-anchor="middle" transform="rotate(-90 20 {:.1})">{}</text>"#,
            TOP + ph / 2.0,
            TOP + ph / 2.0,
            esc(&self.y_label)
        );
        // Lines and legend.
        for (slot, (i, s, pts)) in series.iter().enumerate() {
            let color = PALETTE[i % PALETTE.len()];
            let dash = if s.dashed {
                r#" stroke-dasharray="6 4""#
            } else {
                ""
            };
            let path: Vec<String> = pts
                .iter()
                .map(|&(x, y)| format!("{:.1},{:.1}", px(x), py(y)))
                .collect();
            let _ = writeln!(
                svg,
                r#"<polyline points="{}" fill="none" stroke="{color}" stroke-width="2"{dash}/>"#,
                path.join(" ")
            );
            for &(x, y) in pts {
                let _ = writeln!(
                    svg,
                    r#"<circle cx="{:.1}" cy="{:.1}" r="3" fill="{color}"><title>{}: ({}, {:.3})</title></circle>"#,
                    px(x),
                    py(y),
                    esc(&s.name),
                    fmt_tick(x),
                    y
                );
            }
            let ly = TOP + 10.0 + slot as f64 * 18.0;
            let lx = W - RIGHT + 15.0;
            let _ = writeln!(
                svg,
                r#"<line x1="{lx}" y1="{ly:.1}" x2="{:.1}" y2="{ly:.1}" stroke="{color}" stroke-width="2"{dash}/><text x="{:.1}" y="{:.1}">{}</text>"#,
                lx + 24.0,
                lx + 30.0,
                ly + 4.0,
                esc(&s.name)
            );
        }
        svg.push_str("</svg>\n");
        svg
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_lines_legend_and_ticks() {
        let c = Chart {
            title: "reduce <sum>".into(),
            x_label: "n".into(),
            y_label: "GB/s".into(),
            x_axis: XAxis::Log2Pow,
            series: vec![
                Series::new("auto i32", vec![(1024.0, 10.0), (1048576.0, 2000.0)]),
                Series::dashed("copy", vec![(1024.0, 5.0), (1048576.0, 1900.0)]),
                Series::new("empty", vec![]),
            ],
        };
        let s = c.to_svg();
        assert!(s.starts_with("<svg") && s.trim_end().ends_with("</svg>"));
        assert_eq!(s.matches("<polyline").count(), 2);
        assert!(s.contains("2^10") && s.contains("2^20"));
        assert!(s.contains("reduce &lt;sum&gt;"));
        assert!(s.contains("stroke-dasharray"));
        let empty = Chart {
            series: vec![],
            ..c
        };
        assert!(empty.to_svg().contains("no data"));
        assert_eq!(nice_step(3000.0, 6.0), 500.0);
    }
}
