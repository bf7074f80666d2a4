package io.outpost.loadtest;

import java.util.List;
import java.util.Locale;

/** Small inline SVG charts for the self-contained HTML report (no scripts, no external resources). */
public final class Svg {
    static final String[] COLOURS = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b"};
    private static final int W = 560;
    private static final int H = 300;
    private static final int L = 70;
    private static final int R = 130;
    private static final int T = 30;
    private static final int B = 45;

    public record Point(double x, double y) {
    }

    public record Series(String name, List<Point> points) {
    }

    private Svg() {
    }

    /** A line chart; {@code logY} plots y on a log10 axis (values must be positive). */
    public static String lines(String title, String xLabel, String yLabel, List<Series> series, boolean logY,
                               List<String> xTickLabels, List<Double> xTicks) {
        double xmin = Double.MAX_VALUE, xmax = -Double.MAX_VALUE, ymin = Double.MAX_VALUE, ymax = -Double.MAX_VALUE;
        for (Series s : series) {
            for (Point p : s.points()) {
                xmin = Math.min(xmin, p.x());
                xmax = Math.max(xmax, p.x());
                double y = ty(p.y(), logY);
                ymin = Math.min(ymin, y);
                ymax = Math.max(ymax, y);
            }
        }
        StringBuilder sb = open(title);
        if (xmin == Double.MAX_VALUE) {
            return sb.append(text(W / 2.0, H / 2.0, "no data", "middle")).append("</svg>").toString();
        }
        if (!logY) {
            ymin = Math.min(0, ymin);
        }
        if (ymax <= ymin) {
            ymax = ymin + 1;
        }
        if (xmax <= xmin) {
            xmax = xmin + 1;
        }
        final double x0 = xmin, x1 = xmax, y0 = ymin, y1 = ymax;
        axes(sb, xLabel, yLabel);
        for (int i = 0; i <= 4; i++) {
            double v = y0 + (y1 - y0) * i / 4;
            double py = py(v, y0, y1);
            sb.append(line(L - 4, py, W - R, py, "#ddd"));
            sb.append(text(L - 6, py + 4, num(logY ? Math.pow(10, v) : v), "end"));
        }
        List<Double> ticks = xTicks != null ? xTicks : List.of(x0, x0 + (x1 - x0) / 2, x1);
        for (int i = 0; i < ticks.size(); i++) {
            double px = px(ticks.get(i), x0, x1);
            sb.append(line(px, H - B, px, H - B + 4, "#333"));
            sb.append(text(px, H - B + 16, xTickLabels != null ? xTickLabels.get(i) : num(ticks.get(i)), "middle"));
        }
        for (int i = 0; i < series.size(); i++) {
            Series s = series.get(i);
            String c = COLOURS[i % COLOURS.length];
            StringBuilder pts = new StringBuilder();
            for (Point p : s.points()) {
                double px = px(p.x(), x0, x1), py = py(ty(p.y(), logY), y0, y1);
                pts.append(f(px)).append(',').append(f(py)).append(' ');
                sb.append("<circle cx=\"").append(f(px)).append("\" cy=\"").append(f(py)).append("\" r=\"3\" fill=\"")
                        .append(c).append("\"><title>").append(esc(s.name())).append(": ").append(num(p.y()))
                        .append("</title></circle>");
            }
            sb.append("<polyline fill=\"none\" stroke=\"").append(c).append("\" stroke-width=\"2\" points=\"")
                    .append(pts.toString().trim()).append("\"/>");
            legend(sb, i, s.name(), c);
        }
        return sb.append("</svg>").toString();
    }

    /** A grouped bar chart: one group per category, one bar per series. */
    public static String bars(String title, String yLabel, List<String> categories, List<String> seriesNames,
                              double[][] values) {
        StringBuilder sb = open(title);
        double max = 0;
        for (double[] row : values) {
            for (double v : row) {
                max = Math.max(max, v);
            }
        }
        if (max <= 0) {
            max = 1;
        }
        axes(sb, "", yLabel);
        for (int i = 0; i <= 4; i++) {
            double v = max * i / 4;
            double py = py(v, 0, max);
            sb.append(line(L - 4, py, W - R, py, "#ddd"));
            sb.append(text(L - 6, py + 4, num(v), "end"));
        }
        double groupW = (W - L - R) / (double) Math.max(1, categories.size());
        double barW = groupW * 0.8 / Math.max(1, seriesNames.size());
        for (int g = 0; g < categories.size(); g++) {
            double gx = L + g * groupW + groupW * 0.1;
            for (int s = 0; s < seriesNames.size(); s++) {
                double v = values[g][s];
                double py = py(v, 0, max);
                sb.append("<rect x=\"").append(f(gx + s * barW)).append("\" y=\"").append(f(py)).append("\" width=\"")
                        .append(f(barW * 0.9)).append("\" height=\"").append(f(H - B - py)).append("\" fill=\"")
                        .append(COLOURS[s % COLOURS.length]).append("\"><title>").append(esc(categories.get(g))).append(" ")
                        .append(esc(seriesNames.get(s))).append(": ").append(num(v)).append("</title></rect>");
            }
            sb.append(text(gx + groupW * 0.4, H - B + 16, categories.get(g), "middle"));
        }
        for (int s = 0; s < seriesNames.size(); s++) {
            legend(sb, s, seriesNames.get(s), COLOURS[s % COLOURS.length]);
        }
        return sb.append("</svg>").toString();
    }

    private static StringBuilder open(String title) {
        StringBuilder sb = new StringBuilder();
        sb.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(W).append("\" height=\"").append(H)
                .append("\" viewBox=\"0 0 ").append(W).append(' ').append(H)
                .append("\" font-family=\"sans-serif\" font-size=\"11\" role=\"img\"><title>").append(esc(title))
                .append("</title>");
        sb.append(text(W / 2.0, 16, title, "middle").replace("<text ", "<text font-weight=\"bold\" "));
        return sb;
    }

    private static void axes(StringBuilder sb, String xLabel, String yLabel) {
        sb.append(line(L, T, L, H - B, "#333")).append(line(L, H - B, W - R, H - B, "#333"));
        sb.append(text((L + W - R) / 2.0, H - 8, xLabel, "middle"));
        sb.append("<text x=\"14\" y=\"").append(f((T + H - B) / 2.0)).append("\" text-anchor=\"middle\" transform=\"rotate(-90 14 ")
                .append(f((T + H - B) / 2.0)).append(")\">").append(esc(yLabel)).append("</text>");
    }

    private static void legend(StringBuilder sb, int i, String name, String colour) {
        double y = T + 10 + i * 18;
        sb.append("<rect x=\"").append(W - R + 12).append("\" y=\"").append(f(y - 9)).append("\" width=\"12\" height=\"12\" fill=\"")
                .append(colour).append("\"/>");
        sb.append(text(W - R + 30, y + 1, name, "start"));
    }

    private static double ty(double y, boolean log) {
        return log ? Math.log10(Math.max(y, 1e-3)) : y;
    }

    private static double px(double x, double x0, double x1) {
        return L + (x - x0) / (x1 - x0) * (W - L - R);
    }

    private static double py(double y, double y0, double y1) {
        return H - B - (y - y0) / (y1 - y0) * (H - T - B);
    }

    private static String line(double x1, double y1, double x2, double y2, String colour) {
        return "<line x1=\"" + f(x1) + "\" y1=\"" + f(y1) + "\" x2=\"" + f(x2) + "\" y2=\"" + f(y2) + "\" stroke=\"" + colour + "\"/>";
    }

    private static String text(double x, double y, String s, String anchor) {
        return "<text x=\"" + f(x) + "\" y=\"" + f(y) + "\" text-anchor=\"" + anchor + "\">" + esc(s) + "</text>";
    }

    static String num(double v) {
        double a = Math.abs(v);
        if (a >= 1e6) {
            return String.format(Locale.ROOT, "%.2fM", v / 1e6);
        }
        if (a >= 1e4) {
            return String.format(Locale.ROOT, "%.1fk", v / 1e3);
        }
        if (a >= 100 || v == Math.rint(v)) {
            return String.format(Locale.ROOT, "%.0f", v);
        }
        return String.format(Locale.ROOT, a >= 1 ? "%.1f" : "%.3f", v);
    }

    private static String f(double d) {
        return String.format(Locale.ROOT, "%.1f", d);
    }

    static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
