package dev.dbbulkhead.fleettests;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** The scenarios' figures as a Markdown table, the way docs/reference/fleet.md shows them. */
final class Figures {

    /**
     * One scenario's row.
     *
     * @param scenario    what happened
     * @param worst       the most member connections any sample showed on the server
     * @param bound       what they may be: the budget plus the scenario's floors
     * @param timeToFence from the fault until the faulted instance's sessions were gone from the server
     * @param timeToSplit from each event until the live members' grants were at the fair split
     * @param notes       the outcome, the allowance and remarks
     */
    record Row(String scenario, int worst, int bound, String timeToFence, String timeToSplit, String notes) {
    }

    private final List<Row> rows = new CopyOnWriteArrayList<>();
    private final String preamble;

    /** @param preamble the set-up the figures were measured on, above the table */
    Figures(String preamble) {
        this.preamble = preamble;
    }

    void add(Row row) {
        rows.add(row);
    }

    String markdown() {
        StringBuilder table = new StringBuilder(preamble).append("\n\n")
                .append("| scenario | worst Σ member connections / bound | time to fence | time to fair split | notes |\n")
                .append("|---|---|---|---|---|\n");
        for (Row row : rows) {
            table.append("| ").append(cell(row.scenario())).append(" | ")
                    .append(row.worst() < 0 ? "no sample" : row.worst() + " / " + row.bound()).append(" | ")
                    .append(cell(row.timeToFence())).append(" | ").append(cell(row.timeToSplit())).append(" | ")
                    .append(cell(row.notes())).append(" |\n");
        }
        return table.toString();
    }

    /** Writes the table to {@code file} and prints it. */
    void write(Path file) {
        String markdown = markdown();
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            Files.writeString(file, markdown);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not write the figures to " + file, e);
        }
        System.out.println(markdown);
    }

    private static String cell(String text) {
        return text.replace("|", "\\|").replace("\n", " ");
    }
}
