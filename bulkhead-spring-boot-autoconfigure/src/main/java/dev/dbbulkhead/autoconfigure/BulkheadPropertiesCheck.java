package dev.dbbulkhead.autoconfigure;

import dev.dbbulkhead.autoconfigure.PropertyKeys.AnyKey;
import dev.dbbulkhead.autoconfigure.PropertyKeys.Group;
import dev.dbbulkhead.autoconfigure.PropertyKeys.Indexed;
import dev.dbbulkhead.autoconfigure.PropertyKeys.Key;
import dev.dbbulkhead.autoconfigure.PropertyKeys.Node;
import dev.dbbulkhead.autoconfigure.PropertyKeys.Value;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.boot.convert.ApplicationConversionService;
import org.springframework.boot.json.JsonParserFactory;
import org.springframework.core.convert.ConversionException;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.Environment;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/**
 * Reads every {@code db.bulkhead.*} property as the application's sources give it, before anything binds them, and
 * refuses what would not take effect as written: a key no properties class has (a misspelt key would leave its
 * setting at another value), a workload name the binder would rewrite, a duration without a unit, and a value that
 * does not convert to its key's type. Keys are those of {@link BulkheadProperties} and the classes it nests.
 */
final class BulkheadPropertiesCheck {

    /** What a workload may be called: one element of a property name as written, a bean name and a meter tag. */
    static final Pattern WORKLOAD_NAME = Pattern.compile("[a-z0-9][a-z0-9-]{0,62}");

    /** How {@link #WORKLOAD_NAME} reads in a report. */
    static final String WORKLOAD_NAME_RULE = "1 to 63 characters: lower-case letters, digits and '-', starting with"
            + " a letter or digit";

    private static final ConfigurationPropertyName PREFIX = ConfigurationPropertyName.of(BulkheadProperties.PREFIX);

    private static final int WORKLOADS_ELEMENT = PREFIX.getNumberOfElements();

    private static final String WORKLOADS = "workloads";

    private static final String DEFAULTS = "defaults";

    /** A number alone, as a duration without its unit reads. */
    private static final Pattern BARE_NUMBER = Pattern.compile("[+-]?\\d+(\\.\\d+)?");

    private static final Group KEYS = PropertyKeys.of(BulkheadProperties.class);

    private final Environment environment;
    private final Set<String> problems = new LinkedHashSet<>();
    private @Nullable Map<String, String> descriptions;

    private BulkheadPropertiesCheck(Environment environment) {
        this.environment = environment;
    }

    /**
     * Checks every {@code db.bulkhead.*} property of {@code environment}.
     *
     * @throws BulkheadConfigurationException naming each property refused, and why
     */
    static void check(Environment environment) {
        if (!(environment instanceof ConfigurableEnvironment)) {
            return; // no property sources to read: nothing was written
        }
        BulkheadPropertiesCheck check = new BulkheadPropertiesCheck(environment);
        check.checkWrittenWorkloadNames();
        check.checkProperties();
        if (!check.problems.isEmpty()) {
            // Stopping anyway: the values out of their ranges go in the same report, so that one start-up tells all.
            check.valuesOutOfRange();
            throw BulkheadConfigurationException.propertiesNotAsWritten(List.copyOf(check.problems));
        }
    }

    /**
     * The values out of their ranges, as the gates' own checks find them once the properties are bound; none when
     * the properties do not bind (a value that does not convert is reported already).
     */
    private void valuesOutOfRange() {
        BulkheadProperties bound;
        try {
            bound = Binder.get(environment).bindOrCreate(BulkheadProperties.PREFIX, BulkheadProperties.class);
        } catch (RuntimeException notBound) {
            return;
        }
        ResolvedWorkloads.mistakes(bound).forEach(mistake -> problems.add(mistake.getMessage()));
    }

    /** Each property once, as the source of highest precedence gives it: the value that would be bound. */
    private void checkProperties() {
        Set<ConfigurationPropertyName> seen = new HashSet<>();
        for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
            if (!(source instanceof IterableConfigurationPropertySource iterable)) {
                continue;
            }
            iterable.filter(PREFIX::isAncestorOf).stream().filter(seen::add).forEach(name -> {
                ConfigurationProperty property = source.getConfigurationProperty(name);
                checkProperty(name, property == null ? null : property.getValue());
            });
        }
    }

    private void checkProperty(ConfigurationPropertyName name, @Nullable Object value) {
        Node node = KEYS;
        // The name under which the metadata describes the key: workloads' keys are described under the defaults.
        StringBuilder described = new StringBuilder(BulkheadProperties.PREFIX);
        boolean describable = true;
        for (int index = PREFIX.getNumberOfElements(); index < name.getNumberOfElements(); index++) {
            if (node instanceof Group group) {
                Key key = group.keys().get(PropertyKeys.uniformElement(name, index));
                if (key == null) {
                    unknownKey(name, index, group);
                    return;
                }
                if (index == WORKLOADS_ELEMENT && key.node() instanceof AnyKey workloads
                        && key.dashed().equals(WORKLOADS)) {
                    if (index + 1 == name.getNumberOfElements()
                            || !checkWorkloadName(name.getElement(index + 1, Form.ORIGINAL))) {
                        return;
                    }
                    described.append('.').append(DEFAULTS);
                    node = workloads.value();
                    index++;
                    continue;
                }
                if (describable) {
                    described.append('.').append(key.dashed());
                }
                node = key.node();
            } else if (node instanceof AnyKey map) {
                describable = false;
                node = map.value();
            } else if (node instanceof Indexed list) {
                describable = false;
                node = list.element();
            } else {
                problems.add("'" + name + "': " + prefix(name, index) + " takes a value, and has no key '"
                        + name.getElement(index, Form.ORIGINAL) + "'");
                return;
            }
        }
        if (node instanceof Value leaf && value != null) {
            checkValue(name, leaf.type(), value, described.toString());
        } else if (node instanceof Group group && value != null && !String.valueOf(value).isEmpty()) {
            valueForAGroup(name, group, value);
        }
    }

    /**
     * A value written where keys belong ({@code workloads: { audit: 4 }}): the binder would fail on it with its own
     * words, naming a class of ours; this names the keys it may have meant.
     */
    private void valueForAGroup(ConfigurationPropertyName name, Group group, Object value) {
        boolean workload = name.getNumberOfElements() == WORKLOADS_ELEMENT + 2
                && WORKLOADS.equals(name.getElement(WORKLOADS_ELEMENT, Form.UNIFORM));
        String example = workload ? WorkloadKeys.MAX_CONCURRENT.name() : group.keys().values().iterator().next().dashed();
        problems.add("'" + name + "' = '" + value + "' is a value where keys belong: "
                + (workload ? "a workload's settings are keys under its name" : "'" + name + "' holds keys")
                + ", such as '" + name + "." + example + "'" + (workload ? " (its B)" : "")
                + (group.keys().size() > 12 ? "" : "; the keys it may hold: "
                        + group.keys().values().stream().map(Key::dashed).sorted().toList()));
    }

    private void unknownKey(ConfigurationPropertyName name, int index, Group group) {
        StringBuilder problem = new StringBuilder("'").append(name).append("' is not a db-bulkhead property: ")
                .append(prefix(name, index)).append(" has no key '").append(name.getElement(index, Form.ORIGINAL))
                .append("'");
        StringBuilder meant = new StringBuilder(prefix(name, index));
        String unknown = PropertyKeys.uniformElement(name, index);
        Key nearest = PropertyKeys.nearest(group, unknown);
        boolean misspelt = nearest != null && PropertyKeys.editDistance(unknown, PropertyKeys.uniform(nearest.dashed()))
                <= Math.max(2, unknown.length() / 3);
        if (!misspelt && index == WORKLOADS_ELEMENT && isWorkloadKey(name, index + 1)) {
            // A workload's keys written without 'workloads': its name stands where a key of the prefix should.
            meant.append('.').append(WORKLOADS).append('.').append(name.getElement(index, Form.ORIGINAL));
        } else if (nearest != null) {
            meant.append('.').append(nearest.dashed());
        } else {
            problems.add(problem.toString());
            return;
        }
        for (int rest = index + 1; rest < name.getNumberOfElements(); rest++) {
            meant.append(name.isNumericIndex(rest) ? "[" + name.getElement(rest, Form.ORIGINAL) + "]"
                    : "." + name.getElement(rest, Form.ORIGINAL));
        }
        problems.add(problem.append("; the nearest known key is '").append(meant).append("'").toString());
    }

    /** Whether the elements of {@code name} from {@code from} on are a key of a workload. */
    private static boolean isWorkloadKey(ConfigurationPropertyName name, int from) {
        Key workloads = KEYS.keys().get(WORKLOADS);
        if (from >= name.getNumberOfElements() || workloads == null
                || !(workloads.node() instanceof AnyKey map)) {
            return false;
        }
        Node node = map.value();
        for (int index = from; index < name.getNumberOfElements(); index++) {
            if (!(node instanceof Group group)) {
                return true;
            }
            Key key = group.keys().get(PropertyKeys.uniformElement(name, index));
            if (key == null) {
                return false;
            }
            node = key.node();
        }
        return true;
    }

    /** The first {@code elements} elements of {@code name}: where an unknown element was found. */
    private static String prefix(ConfigurationPropertyName name, int elements) {
        return name.chop(elements).toString();
    }

    private boolean checkWorkloadName(String workload) {
        if (WORKLOAD_NAME.matcher(workload).matches()) {
            return true;
        }
        problems.add(invalidWorkloadName(workload));
        return false;
    }

    /** Named once however many of its keys are set, as written rather than as the binder would rewrite it. */
    private static String invalidWorkloadName(String workload) {
        return "'" + BulkheadProperties.PREFIX + "." + WORKLOADS + "' has a workload named '" + workload + "', which is"
                + " not a workload name: it is used as written (a bean name, a meter tag, @DbBulkhead's value) and"
                + " must be " + WORKLOAD_NAME_RULE;
    }

    /**
     * The names of workloads as written in each source, before the binder drops what a property name may not hold
     * ({@code order api} would become workload {@code orderapi}). Environment variables are left out: their names
     * cannot hold such characters, and the binder reads their names in lower case by design.
     */
    private void checkWrittenWorkloadNames() {
        if (!(environment instanceof ConfigurableEnvironment configurable)) {
            return;
        }
        for (PropertySource<?> source : configurable.getPropertySources()) {
            if (!(source instanceof EnumerablePropertySource<?> enumerable)
                    || source instanceof SystemEnvironmentPropertySource
                    || ConfigurationPropertySources.isAttachedConfigurationPropertySource(source)) {
                continue;
            }
            for (String property : enumerable.getPropertyNames()) {
                String workload = writtenWorkloadName(property);
                if (workload != null && !WORKLOAD_NAME.matcher(workload).matches()) {
                    problems.add(invalidWorkloadName(workload));
                }
            }
        }
    }

    /** The workload's name in {@code property} as written, brackets removed; null when it names no workload. */
    private static @Nullable String writtenWorkloadName(String property) {
        List<String> elements = new ArrayList<>();
        StringBuilder element = new StringBuilder();
        boolean bracketed = false;
        for (char character : property.toCharArray()) {
            if (!bracketed && (character == '.' || character == '[')) {
                if (!element.isEmpty() || character == '.') {
                    elements.add(element.toString());
                }
                element.setLength(0);
                bracketed = character == '[';
            } else if (bracketed && character == ']') {
                elements.add(element.toString());
                element.setLength(0);
                bracketed = false;
            } else {
                element.append(character);
            }
            if (elements.size() > WORKLOADS_ELEMENT + 1) {
                break;
            }
        }
        if (!element.isEmpty()) {
            elements.add(element.toString());
        }
        elements.removeIf(String::isEmpty);
        if (elements.size() <= WORKLOADS_ELEMENT || !PropertyKeys.uniform(elements.get(WORKLOADS_ELEMENT))
                .equals(WORKLOADS)) {
            return null;
        }
        for (int index = 0; index < WORKLOADS_ELEMENT; index++) {
            if (!PropertyKeys.uniform(elements.get(index)).equals(PropertyKeys.uniformElement(PREFIX, index))) {
                return null;
            }
        }
        return elements.size() > WORKLOADS_ELEMENT + 1 ? elements.get(WORKLOADS_ELEMENT + 1) : null;
    }

    /**
     * Refuses a duration without a unit (whatever unit it would default to, one key would read it otherwise than
     * another) and a value that does not convert to the key's type, naming what the key takes.
     */
    private void checkValue(ConfigurationPropertyName name, Class<?> type, Object written, String described) {
        Object value = written instanceof String text ? environment.resolvePlaceholders(text) : written;
        if (type == Duration.class) {
            String text = String.valueOf(value).trim();
            if (value instanceof Number || BARE_NUMBER.matcher(text).matches()) {
                problems.add("'" + name + "' = '" + text + "' has no unit: write it with one, such as " + text
                        + "s or " + text + "ms" + allowed(described));
                return;
            }
        }
        String expected = expected(type);
        if (expected == null) {
            return;
        }
        try {
            ApplicationConversionService.getSharedInstance().convert(value, type);
        } catch (ConversionException | IllegalArgumentException unconvertible) {
            problems.add("'" + name + "' = '" + value + "' is not " + expected + allowed(described));
        }
    }

    /** What a value of {@code type} must be, in words; null for types whose binding reports itself (enumerations, text). */
    private static @Nullable String expected(Class<?> type) {
        if (type == Integer.class || type == int.class || type == Long.class || type == long.class) {
            return "a whole number";
        }
        if (type == Double.class || type == double.class) {
            return "a number";
        }
        if (type == Boolean.class || type == boolean.class) {
            return "true or false";
        }
        if (type == Duration.class) {
            return "a duration (such as 500ms, 5s or 2m)";
        }
        return null;
    }

    /** The range of the key the metadata describes as {@code described}, from its description; empty if none. */
    private String allowed(String described) {
        String description = descriptions().get(described);
        if (description == null) {
            return "";
        }
        List<String> ranges = new ArrayList<>();
        for (String clause : description.split("; ")) {
            if (clause.chars().anyMatch(Character::isDigit)) {
                ranges.add(clause.endsWith(".") ? clause.substring(0, clause.length() - 1) : clause);
            }
        }
        return ranges.isEmpty() ? "" : " (" + described.substring(described.lastIndexOf('.') + 1) + ": "
                + String.join("; ", ranges) + ")";
    }

    /** The descriptions of the configuration metadata, by property: the ranges the reference documents. */
    private Map<String, String> descriptions() {
        Map<String, String> read = descriptions;
        if (read == null) {
            read = readDescriptions();
            descriptions = read;
        }
        return read;
    }

    private static Map<String, String> readDescriptions() {
        Map<String, String> described = new HashMap<>();
        try {
            Enumeration<URL> resources = BulkheadPropertiesCheck.class.getClassLoader()
                    .getResources("META-INF/spring-configuration-metadata.json");
            while (resources.hasMoreElements()) {
                try (InputStream json = resources.nextElement().openStream()) {
                    Object properties = JsonParserFactory.getJsonParser()
                            .parseMap(new String(json.readAllBytes(), StandardCharsets.UTF_8)).get("properties");
                    if (properties instanceof List<?> list) {
                        for (Object property : list) {
                            if (property instanceof Map<?, ?> entry && entry.get("name") instanceof String name
                                    && entry.get("description") instanceof String description
                                    && name.startsWith(BulkheadProperties.PREFIX + ".")) {
                                described.put(name, description);
                            }
                        }
                    }
                }
            }
        } catch (IOException | RuntimeException unreadable) {
            // The ranges only add to the report: without the metadata it still names the property and the value.
        }
        return described;
    }
}
