//! The estimated cycles of kernels split by instruction class, as a stacked horizontal bar chart in SVG.

use quick_xml::escape::escape;

use super::model::{ByClass, Class};

/// One bar: a label and its cycles per class.
pub struct Bar {
    pub label: String,
    pub by_class: ByClass,
}

const COLOURS: [&str; 5] = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f"];
const LABEL_WIDTH: f64 = 300.0;
const BAR_AREA: f64 = 560.0;
const ROW: f64 = 26.0;
const TOP: f64 = 50.0;

/// A round axis step: 1, 2 or 5 times a power of ten, about a sixth of `max`.
fn step(max: f64) -> f64 {
    let raw = (max / 6.0).max(1.0);
    let power = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * power).find(|s| *s >= raw).unwrap_or(10.0 * power)
}

/// The chart: one bar per entry, the classes in the order of [`Class::ALL`], a legend and a cycle axis.
pub fn svg(title: &str, bars: &[Bar]) -> String {
    svg_per(title, "call", bars)
}

/// [`svg`] with the axis in cycles per `unit` (a call, an operation).
pub fn svg_per(title: &str, unit: &str, bars: &[Bar]) -> String {
    let max = bars.iter().map(|b| b.by_class.iter().sum::<f64>()).fold(0.0, f64::max).max(1.0);
    let step = step(max);
    let axis_max = (max / step).ceil() * step;
    let scale = BAR_AREA / axis_max;
    let height = TOP + ROW * bars.len() as f64 + 70.0;
    let width = LABEL_WIDTH + BAR_AREA + 40.0;
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" font-family=\"sans-serif\" \
         font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n<text x=\"10\" y=\"20\" \
         font-size=\"14\" font-weight=\"bold\">{}</text>\n",
        escape(title)
    );
    for (row, bar) in bars.iter().enumerate() {
        let y = TOP + ROW * row as f64;
        let total: f64 = bar.by_class.iter().sum();
        out.push_str(&format!(
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n",
            LABEL_WIDTH - 8.0,
            y + ROW * 0.6,
            escape(&bar.label)
        ));
        let mut x = LABEL_WIDTH;
        for (class, (&cycles, colour)) in Class::ALL.iter().zip(bar.by_class.iter().zip(COLOURS)) {
            let w = cycles * scale;
            if w > 0.0 {
                out.push_str(&format!(
                    "<rect x=\"{x:.1}\" y=\"{:.1}\" width=\"{w:.1}\" height=\"{:.1}\" fill=\"{colour}\"><title>{}: \
                     {cycles:.0} cycles</title></rect>\n",
                    y + 3.0,
                    ROW - 6.0,
                    escape(class.name())
                ));
            }
            x += w;
        }
        out.push_str(&format!("<text x=\"{:.1}\" y=\"{}\">{total:.0}</text>\n", x + 4.0, y + ROW * 0.6));
    }
    // Axis with round ticks.
    let axis_y = TOP + ROW * bars.len() as f64 + 4.0;
    out.push_str(&format!(
        "<line x1=\"{LABEL_WIDTH}\" y1=\"{axis_y}\" x2=\"{}\" y2=\"{axis_y}\" stroke=\"black\"/>\n",
        LABEL_WIDTH + BAR_AREA
    ));
    let mut tick = 0.0;
    while tick <= axis_max + step / 2.0 {
        let x = LABEL_WIDTH + tick * scale;
        out.push_str(&format!(
            "<line x1=\"{x:.1}\" y1=\"{axis_y}\" x2=\"{x:.1}\" y2=\"{}\" stroke=\"black\"/><text x=\"{x:.1}\" y=\"{}\" \
             text-anchor=\"middle\">{tick:.0}</text>\n",
            axis_y + 4.0,
            axis_y + 16.0
        ));
        tick += step;
    }
    out.push_str(&format!(
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">estimated cycles per {}</text>\n",
        LABEL_WIDTH + BAR_AREA / 2.0,
        axis_y + 32.0,
        escape(unit)
    ));
    // Legend.
    let mut x = LABEL_WIDTH;
    for (class, colour) in Class::ALL.iter().zip(COLOURS) {
        out.push_str(&format!(
            "<rect x=\"{x}\" y=\"28\" width=\"10\" height=\"10\" fill=\"{colour}\"/><text x=\"{}\" y=\"37\">{}</text>\n",
            x + 14.0,
            escape(class.name())
        ));
        x += 22.0 + 7.0 * class.name().len() as f64;
    }
    out.push_str("</svg>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_scale_to_their_totals() {
        let bars = [
            Bar { label: "a<b".into(), by_class: [100.0, 0.0, 0.0, 0.0, 0.0] },
            Bar { label: "c".into(), by_class: [50.0, 25.0, 25.0, 0.0, 0.0] },
        ];
        let svg = svg("t", &bars);
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>\n"));
        assert!(svg.contains("a&lt;b"));
        // Axis to 100 in steps of 20: the first bar spans the whole bar area.
        assert_eq!(step(100.0), 20.0);
        assert!(svg.contains(&format!("width=\"{BAR_AREA:.1}\"")));
        assert!(svg.contains(&format!("width=\"{:.1}\"", BAR_AREA / 4.0)));
    }
}
