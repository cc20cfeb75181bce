package dev.dbbulkhead.benchmarks.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** A GitHub-flavoured Markdown table, built row by row. */
public final class MarkdownTable {

    private final List<String> header;
    private final List<List<String>> rows = new ArrayList<>();

    public MarkdownTable(String... header) {
        this.header = List.of(header);
    }

    /** Adds a row; it must have as many cells as the header. */
    public MarkdownTable row(Object... cells) {
        if (cells.length != header.size()) {
            throw new IllegalArgumentException("row of " + cells.length + " cells for " + header.size() + " columns");
        }
        List<String> row = new ArrayList<>();
        for (Object cell : cells) {
            row.add(String.valueOf(cell));
        }
        rows.add(row);
        return this;
    }

    /** A number with {@code decimals} decimals, or "–" for NaN. */
    public static String number(double value, int decimals) {
        return Double.isNaN(value) ? "–" : String.format(Locale.ROOT, "%,." + decimals + "f", value);
    }

    /** A share as a percentage with one decimal. */
    public static String percent(double share) {
        return Double.isNaN(share) ? "–" : String.format(Locale.ROOT, "%.1f %%", share * 100);
    }

    @Override
    public String toString() {
        StringBuilder text = new StringBuilder();
        line(text, header);
        text.append('|');
        header.forEach(column -> text.append("---|"));
        text.append('\n');
        rows.forEach(row -> line(text, row));
        return text.toString();
    }

    private static void line(StringBuilder text, List<String> cells) {
        text.append('|');
        cells.forEach(cell -> text.append(' ').append(cell).append(" |"));
        text.append('\n');
    }
}
