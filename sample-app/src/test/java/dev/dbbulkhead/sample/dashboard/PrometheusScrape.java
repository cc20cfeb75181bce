package dev.dbbulkhead.sample.dashboard;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The samples of one scrape in Prometheus' text format: what {@code /actuator/prometheus} answered, as a dashboard's
 * queries see it.
 *
 * @param samples every sample line, in the order given
 */
record PrometheusScrape(List<Sample> samples) {

    /** {@code name{label="value",...} value}: label values are quoted, and may hold escaped quotes. */
    private static final Pattern SAMPLE = Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)})?\\s+(\\S+).*");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

    /** One sample: a series and its value. */
    record Sample(String name, Map<String, String> labels, double value) {
    }

    static PrometheusScrape parse(String text) {
        List<Sample> samples = new ArrayList<>();
        for (String line : text.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            Matcher sample = SAMPLE.matcher(line);
            if (!sample.matches()) {
                throw new IllegalArgumentException("Not a sample line of Prometheus' text format: " + line);
            }
            samples.add(new Sample(sample.group(1), labels(sample.group(2)), Double.parseDouble(sample.group(3))));
        }
        return new PrometheusScrape(List.copyOf(samples));
    }

    /** The names of every series in the scrape. */
    Set<String> names() {
        return samples.stream().map(Sample::name).collect(Collectors.toSet());
    }

    /** The label names the series of {@code name} carry. */
    Set<String> labelNames(String name) {
        return samples.stream().filter(sample -> sample.name().equals(name))
                .flatMap(sample -> sample.labels().keySet().stream()).collect(Collectors.toSet());
    }

    /**
     * The value of the one series of {@code name} with the given labels ({@code key, value, ...}); other labels of
     * the series do not matter.
     */
    double value(String name, String... labels) {
        Map<String, String> wanted = new LinkedHashMap<>();
        for (int i = 0; i < labels.length; i += 2) {
            wanted.put(labels[i], labels[i + 1]);
        }
        List<Sample> matching = samples.stream().filter(sample -> sample.name().equals(name)
                && sample.labels().entrySet().containsAll(wanted.entrySet())).toList();
        if (matching.size() != 1) {
            throw new AssertionError("Expected one series " + name + wanted + ", found " + matching);
        }
        return matching.get(0).value();
    }

    private static Map<String, String> labels(String text) {
        Map<String, String> labels = new LinkedHashMap<>();
        if (text != null) {
            Matcher label = LABEL.matcher(text);
            while (label.find()) {
                labels.put(label.group(1), label.group(2));
            }
        }
        return labels;
    }
}
