package dev.dbbulkhead.sample.dashboard;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The queries of a Grafana dashboard as they reach Prometheus: each panel's PromQL expressions and each variable's
 * {@code label_values(metric, label)} query, with the metric names and selectors read out of them.
 *
 * @param title     the dashboard's title
 * @param panels    the panels that query (rows excluded), in order, each with its expressions
 * @param variables the names of the dashboard's variables
 * @param labelValues each {@code label_values} query of a variable, as metric and label
 */
record GrafanaDashboard(String title, List<Panel> panels, Set<String> variables, List<LabelValues> labelValues) {

    /** A metric name in PromQL, which Grafana's {@code $variables} never start. */
    private static final String NAME = "[a-zA-Z_:][a-zA-Z0-9_:]*+";
    /** {@code metric{matchers}}. */
    private static final Pattern SELECTOR = Pattern.compile("(?<![\\w.$])(" + NAME + ")\\{([^}]*)}");
    /** A name not called as a function or aggregation. */
    private static final Pattern BARE_NAME = Pattern.compile("(?<![\\w.$])(" + NAME + ")(?!\\s*\\()");
    /** What names labels rather than metrics: a grouping's label list. */
    private static final Pattern GROUPING = Pattern.compile(
            "\\b(?:by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)");
    private static final Set<String> KEYWORDS = Set.of("and", "or", "unless", "bool", "offset", "by", "without");
    private static final Pattern LABEL_VALUES = Pattern.compile(
            "label_values\\(\\s*(" + NAME + ")\\s*,\\s*(\\w+)\\s*\\)");

    /** A panel and the PromQL expressions of its targets. */
    record Panel(String title, List<String> expressions) {
    }

    /** A selector in an expression: the metric and its label matchers as written. */
    record Selector(String metric, String matchers) {
    }

    /** A variable's query for the values of {@code label} on the series of {@code metric}. */
    record LabelValues(String metric, String label) {
    }

    static GrafanaDashboard read(Path json) throws IOException {
        JsonNode dashboard = JsonMapper.builder().build().readTree(Files.readString(json));
        List<Panel> panels = new ArrayList<>();
        collectPanels(dashboard.path("panels"), panels);
        Set<String> variables = new LinkedHashSet<>();
        List<LabelValues> labelValues = new ArrayList<>();
        for (JsonNode variable : dashboard.path("templating").path("list")) {
            variables.add(variable.path("name").asString());
            JsonNode query = variable.path("query");
            Matcher values = LABEL_VALUES.matcher(query.isObject() ? query.path("query").asString() : query.asString());
            if (values.find()) {
                labelValues.add(new LabelValues(values.group(1), values.group(2)));
            }
        }
        return new GrafanaDashboard(dashboard.path("title").asString(), panels, variables, labelValues);
    }

    /** Every selector of every panel's expressions. */
    List<Selector> selectors() {
        List<Selector> selectors = new ArrayList<>();
        for (String expression : expressions()) {
            Matcher selector = SELECTOR.matcher(expression);
            while (selector.find()) {
                selectors.add(new Selector(selector.group(1), selector.group(2)));
            }
        }
        return selectors;
    }

    /** Every metric name the panels and the variables query, whether written with label matchers or bare. */
    Set<String> metricNames() {
        Set<String> names = new LinkedHashSet<>();
        for (String expression : expressions()) {
            names.addAll(metricNames(expression));
        }
        labelValues.forEach(query -> names.add(query.metric()));
        return names;
    }

    /** The metric names the panels query without label matchers, so that no variable can narrow them. */
    Set<String> bareMetricNames() {
        Set<String> names = new LinkedHashSet<>();
        for (String expression : expressions()) {
            names.addAll(metricNames(SELECTOR.matcher(expression).replaceAll(" ")));
        }
        return names;
    }

    /** The metric names in one PromQL expression: what is left once matchers, ranges and label lists are gone. */
    static Set<String> metricNames(String expression) {
        String withoutLabels = GROUPING.matcher(expression.replaceAll("\\{[^}]*}", " ").replaceAll("\\[[^]]*]", " "))
                .replaceAll(" ");
        Set<String> names = new LinkedHashSet<>();
        Matcher name = BARE_NAME.matcher(withoutLabels);
        while (name.find()) {
            if (!KEYWORDS.contains(name.group(1))) {
                names.add(name.group(1));
            }
        }
        return names;
    }

    private List<String> expressions() {
        return panels.stream().flatMap(panel -> panel.expressions().stream()).toList();
    }

    /** Panels of the top level and of collapsed rows, which keep theirs inside. */
    private static void collectPanels(JsonNode list, List<Panel> panels) {
        for (JsonNode panel : list) {
            if ("row".equals(panel.path("type").asString())) {
                collectPanels(panel.path("panels"), panels);
                continue;
            }
            List<String> expressions = new ArrayList<>();
            for (JsonNode target : panel.path("targets")) {
                expressions.add(target.path("expr").asString());
            }
            panels.add(new Panel(panel.path("title").asString(), expressions));
        }
    }
}
