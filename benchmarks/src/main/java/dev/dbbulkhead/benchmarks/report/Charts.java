package dev.dbbulkhead.benchmarks.report;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.geom.AffineTransform;
import java.awt.geom.Path2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import javax.imageio.ImageIO;

/**
 * PNG charts drawn with java.awt alone (headless), from the harness's own measurements: line charts over time
 * and grouped bar charts, each with reference lines for the physical floor or a target.
 */
public final class Charts {

    private static final int WIDTH = 1100;
    private static final int HEIGHT = 560;
    private static final int LEFT = 90;
    private static final int RIGHT = 290;
    private static final int TOP = 60;
    private static final int BOTTOM = 70;
    private static final Color[] PALETTE = {
            new Color(0xD62728), new Color(0x1F77B4), new Color(0xFF7F0E), new Color(0x9467BD),
            new Color(0x2CA02C), new Color(0x8C564B), new Color(0x17BECF), new Color(0x7F7F7F)};

    private Charts() {
    }

    /** A named line of (x, y) points. */
    public record Series(String name, List<double[]> points) {
    }

    /** A horizontal line at {@code value}, labelled. */
    public record Reference(String label, double value) {
    }

    /** A named group of bar values, one per category. */
    public record Bars(String name, double[] values) {
    }

    /** Lines over a shared x axis; a logarithmic y axis spans values that differ by orders of magnitude. */
    public static void lineChart(Path file, String title, String xLabel, String yLabel, boolean logY,
                                 List<Series> series, List<Reference> references) throws IOException {
        double maxX = 0;
        double minY = Double.MAX_VALUE;
        double maxY = 0;
        for (Series line : series) {
            for (double[] point : line.points()) {
                maxX = Math.max(maxX, point[0]);
                minY = Math.min(minY, point[1]);
                maxY = Math.max(maxY, point[1]);
            }
        }
        for (Reference reference : references) {
            minY = Math.min(minY, reference.value());
            maxY = Math.max(maxY, reference.value());
        }
        Axis y = logY ? Axis.logarithmic(Math.max(minY, 0.1), maxY) : Axis.linear(maxY);
        Canvas canvas = new Canvas(title, xLabel, yLabel);
        canvas.yAxis(y);
        double xMax = niceCeiling(maxX);
        for (int tick = 0; tick <= 5; tick++) {
            double x = xMax * tick / 5;
            canvas.xTick(canvas.plotX(x / xMax), format(x));
        }
        for (int i = 0; i < series.size(); i++) {
            Series line = series.get(i);
            canvas.graphics.setColor(PALETTE[i % PALETTE.length]);
            canvas.graphics.setStroke(new BasicStroke(2f));
            Path2D path = new Path2D.Double();
            boolean first = true;
            for (double[] point : line.points()) {
                double px = canvas.plotX(point[0] / xMax);
                double py = canvas.plotY(y.fraction(point[1]));
                if (first) {
                    path.moveTo(px, py);
                    first = false;
                } else {
                    path.lineTo(px, py);
                }
            }
            canvas.graphics.draw(path);
            canvas.legend(i, line.name(), PALETTE[i % PALETTE.length]);
        }
        canvas.references(references, y, series.size());
        write(file, canvas.finish());
    }

    /** One bar chart of a {@link #barPanels stack}: its title, y axis, bars and reference lines. */
    public record Panel(String title, String yLabel, boolean logY, List<Bars> bars, List<Reference> references) {
    }

    /** Groups of bars, one group per category, one bar per {@link Bars}; linear or logarithmic y axis. */
    public static void barChart(Path file, String title, String yLabel, boolean logY, List<String> categories,
                                List<Bars> bars, List<Reference> references) throws IOException {
        write(file, drawBars(new Panel(title, yLabel, logY, bars, references), categories));
    }

    /** Bar charts of the same categories stacked in one image, one under the other: measures of different units. */
    public static void barPanels(Path file, List<String> categories, List<Panel> panels) throws IOException {
        BufferedImage stack = new BufferedImage(WIDTH, HEIGHT * panels.size(), BufferedImage.TYPE_INT_RGB);
        Graphics2D graphics = stack.createGraphics();
        for (int i = 0; i < panels.size(); i++) {
            graphics.drawImage(drawBars(panels.get(i), categories), 0, i * HEIGHT, null);
        }
        graphics.dispose();
        write(file, stack);
    }

    private static BufferedImage drawBars(Panel panel, List<String> categories) {
        List<Bars> bars = panel.bars();
        // A reference of nothing measured (NaN) has no place on the axis.
        List<Reference> references = panel.references().stream().filter(reference -> reference.value() > 0).toList();
        double minY = Double.MAX_VALUE;
        double maxY = 0;
        for (Bars group : bars) {
            for (double value : group.values()) {
                // Bars of zero or NaN (nothing measured) are not drawn and must not stretch the axis.
                if (value > 0) {
                    minY = Math.min(minY, value);
                    maxY = Math.max(maxY, value);
                }
            }
        }
        for (Reference reference : references) {
            minY = Math.min(minY, reference.value());
            maxY = Math.max(maxY, reference.value());
        }
        Axis y = panel.logY() ? Axis.logarithmic(Math.max(minY, 0.1), maxY) : Axis.linear(maxY);
        Canvas canvas = new Canvas(panel.title(), "", panel.yLabel());
        canvas.yAxis(y);
        double groupWidth = (double) canvas.plotWidth() / categories.size();
        double barWidth = groupWidth * 0.8 / bars.size();
        for (int c = 0; c < categories.size(); c++) {
            double groupLeft = LEFT + c * groupWidth + groupWidth * 0.1;
            canvas.xTick(groupLeft + groupWidth * 0.4, categories.get(c));
            for (int b = 0; b < bars.size(); b++) {
                double value = bars.get(b).values()[c];
                if (!(value > 0)) {
                    continue;
                }
                double top = canvas.plotY(y.fraction(value));
                canvas.graphics.setColor(PALETTE[b % PALETTE.length]);
                canvas.graphics.fill(new java.awt.geom.Rectangle2D.Double(groupLeft + b * barWidth, top,
                        barWidth - 2, HEIGHT - BOTTOM - top));
            }
        }
        for (int b = 0; b < bars.size(); b++) {
            canvas.legend(b, bars.get(b).name(), PALETTE[b % PALETTE.length]);
        }
        canvas.references(references, y, bars.size());
        return canvas.finish();
    }

    private static void write(Path file, BufferedImage image) throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        ImageIO.write(image, "png", file.toFile());
    }

    /** The smallest of 1, 2, 2.5, 5 or 10 times a power of ten at or above {@code value}, for round ticks. */
    private static double niceCeiling(double value) {
        if (value <= 0) {
            return 1;
        }
        double decade = Math.pow(10, Math.floor(Math.log10(value)));
        for (double step : new double[] {1, 2, 2.5, 5, 10}) {
            if (step * decade >= value) {
                return step * decade;
            }
        }
        return 10 * decade;
    }

    private static String format(double value) {
        if (value == 0) {
            return "0";
        }
        if (Math.abs(value) >= 100) {
            return String.format(Locale.ROOT, "%,.0f", value);
        }
        if (Math.abs(value) >= 1) {
            return String.format(Locale.ROOT, "%.1f", value);
        }
        return String.format(Locale.ROOT, "%.2g", value);
    }

    /** Maps values to [0, 1] along the y axis. */
    private record Axis(boolean log, double min, double max) {

        static Axis linear(double max) {
            return new Axis(false, 0, niceCeiling(max * 1.05));
        }

        static Axis logarithmic(double min, double max) {
            double low = Math.pow(10, Math.floor(Math.log10(min)));
            double high = Math.pow(10, Math.ceil(Math.log10(Math.max(max, min * 10))));
            return new Axis(true, low, high);
        }

        double fraction(double value) {
            if (log) {
                double clamped = Math.max(value, min);
                return (Math.log10(clamped) - Math.log10(min)) / (Math.log10(max) - Math.log10(min));
            }
            return value / max;
        }

        double[] ticks() {
            if (log) {
                int decades = (int) Math.round(Math.log10(max / min));
                double[] ticks = new double[decades + 1];
                for (int i = 0; i <= decades; i++) {
                    ticks[i] = min * Math.pow(10, i);
                }
                return ticks;
            }
            double[] ticks = new double[6];
            for (int i = 0; i <= 5; i++) {
                ticks[i] = max * i / 5;
            }
            return ticks;
        }
    }

    /** The image, its frame, axes and legend. */
    private static final class Canvas {

        private final BufferedImage image = new BufferedImage(WIDTH, HEIGHT, BufferedImage.TYPE_INT_RGB);
        private final Graphics2D graphics = image.createGraphics();

        Canvas(String title, String xLabel, String yLabel) {
            graphics.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            graphics.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
            graphics.setColor(Color.WHITE);
            graphics.fillRect(0, 0, WIDTH, HEIGHT);
            graphics.setColor(Color.BLACK);
            graphics.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 17));
            graphics.drawString(title, LEFT, 32);
            graphics.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
            graphics.drawRect(LEFT, TOP, plotWidth(), HEIGHT - TOP - BOTTOM);
            FontMetrics metrics = graphics.getFontMetrics();
            graphics.drawString(xLabel, LEFT + (plotWidth() - metrics.stringWidth(xLabel)) / 2, HEIGHT - 18);
            AffineTransform upright = graphics.getTransform();
            graphics.rotate(-Math.PI / 2);
            graphics.drawString(yLabel, -(TOP + (HEIGHT - TOP - BOTTOM + metrics.stringWidth(yLabel)) / 2), 22);
            graphics.setTransform(upright);
        }

        int plotWidth() {
            return WIDTH - LEFT - RIGHT;
        }

        double plotX(double fraction) {
            return LEFT + fraction * plotWidth();
        }

        double plotY(double fraction) {
            return HEIGHT - BOTTOM - fraction * (HEIGHT - TOP - BOTTOM);
        }

        void yAxis(Axis axis) {
            FontMetrics metrics = graphics.getFontMetrics();
            for (double tick : axis.ticks()) {
                int py = (int) plotY(axis.fraction(tick));
                graphics.setColor(new Color(0xE0E0E0));
                graphics.drawLine(LEFT + 1, py, LEFT + plotWidth() - 1, py);
                graphics.setColor(Color.BLACK);
                String label = format(tick);
                graphics.drawString(label, LEFT - 8 - metrics.stringWidth(label), py + 5);
            }
        }

        void xTick(double px, String label) {
            FontMetrics metrics = graphics.getFontMetrics();
            graphics.setColor(Color.BLACK);
            graphics.drawLine((int) px, HEIGHT - BOTTOM, (int) px, HEIGHT - BOTTOM + 5);
            graphics.drawString(label, (int) px - metrics.stringWidth(label) / 2, HEIGHT - BOTTOM + 20);
        }

        void legend(int row, String name, Color color) {
            int x = LEFT + plotWidth() + 20;
            int y = TOP + 10 + row * 24;
            graphics.setColor(color);
            graphics.fillRect(x, y, 16, 12);
            graphics.setColor(Color.BLACK);
            graphics.drawString(name, x + 24, y + 11);
        }

        void references(List<Reference> references, Axis axis, int legendRowsTaken) {
            graphics.setStroke(new BasicStroke(1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f,
                    new float[] {8f, 6f}, 0f));
            for (int i = 0; i < references.size(); i++) {
                Reference reference = references.get(i);
                int py = (int) plotY(axis.fraction(reference.value()));
                graphics.setColor(Color.DARK_GRAY);
                graphics.drawLine(LEFT, py, LEFT + plotWidth(), py);
                int x = LEFT + plotWidth() + 20;
                int y = TOP + 10 + (legendRowsTaken + i) * 24 + 12;
                graphics.drawLine(x, y + 6, x + 16, y + 6);
                graphics.drawString(reference.label(), x + 24, y + 11);
            }
        }

        BufferedImage finish() {
            graphics.dispose();
            return image;
        }
    }
}
