package dev.dbbulkhead.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.testing.RepositoryFiles;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.springframework.boot.configurationmetadata.ConfigurationMetadataRepositoryJsonBuilder;

/**
 * The configuration reference, docs/reference/configuration.md, against the configuration metadata the build
 * generates (what IDEs complete), in both directions. A key is documented by a table row whose first cell is the
 * key in backticks. The metadata describes the per-workload keys only under {@code db.bulkhead.defaults} (the
 * workloads are a map); the reference writes each of them twice, as {@code db.bulkhead.defaults.<key>} and as
 * {@code db.bulkhead.workloads.<name>.<key>}.
 */
class ConfigurationReferenceTests {

    private static final String PREFIX = "db.bulkhead.";
    private static final String DEFAULTS = PREFIX + "defaults.";
    private static final String WORKLOAD = PREFIX + "workloads.<name>.";
    private static final Path REFERENCE = Path.of("docs", "reference", "configuration.md");

    /** A table row whose first cell is exactly one {@code db.bulkhead.*} key in backticks. */
    private static final Pattern KEY_ROW = Pattern.compile("^\\|\\s*`(db\\.bulkhead\\.[^`\\s|]+)`\\s*\\|");

    @Test
    void everyKeyOfTheMetadataIsDocumentedInTheConfigurationReference() throws IOException {
        Set<String> documented = documentedKeys().keySet();
        Set<String> undocumented = new TreeSet<>();
        for (String key : metadataKeys()) {
            if (!documented.contains(key)) {
                undocumented.add(key);
            }
        }
        assertThat(undocumented).as("keys of the metadata missing from %s", REFERENCE).isEmpty();
    }

    @Test
    void everyDefaultsKeyIsDocumentedForTheWorkloadsToo() throws IOException {
        Set<String> documented = documentedKeys().keySet();
        Set<String> missingTwins = new TreeSet<>();
        for (String key : metadataKeys()) {
            if (key.startsWith(DEFAULTS)) {
                String twin = WORKLOAD + key.substring(DEFAULTS.length());
                if (!documented.contains(twin)) {
                    missingTwins.add(twin);
                }
            }
        }
        assertThat(missingTwins).as("per-workload keys missing from %s", REFERENCE).isEmpty();
    }

    @Test
    void theConfigurationReferenceDocumentsNoKeyTheMetadataLacks() throws IOException {
        Set<String> metadata = metadataKeys();
        Set<String> unknown = new TreeSet<>();
        for (String key : documentedKeys().keySet()) {
            if (!metadata.contains(metadataSpelling(key))) {
                unknown.add(key);
            }
        }
        assertThat(unknown).as("keys of %s that the metadata lacks", REFERENCE).isEmpty();
    }

    @Test
    void theConfigurationReferenceDocumentsEachKeyInOneRowOnly() throws IOException {
        Map<String, Integer> repeated = new TreeMap<>();
        documentedKeys().forEach((key, rows) -> {
            if (rows > 1) {
                repeated.put(key, rows);
            }
        });
        assertThat(repeated).as("keys documented in more than one row of %s", REFERENCE).isEmpty();
    }

    /** The key as the metadata names it: a workload's key under the defaults group. */
    private static String metadataSpelling(String documentedKey) {
        return documentedKey.startsWith(WORKLOAD)
                ? DEFAULTS + documentedKey.substring(WORKLOAD.length())
                : documentedKey;
    }

    /** Every {@code db.bulkhead.*} property of the metadata the build generated, as an IDE reads it. */
    private static Set<String> metadataKeys() throws IOException {
        Set<String> keys = new TreeSet<>();
        Enumeration<URL> resources = ConfigurationReferenceTests.class.getClassLoader()
                .getResources("META-INF/spring-configuration-metadata.json");
        for (URL metadata : Collections.list(resources)) {
            byte[] json;
            try (InputStream in = metadata.openStream()) {
                json = in.readAllBytes();
            }
            // Other jars on the class path carry metadata of their own; only this module's names db.bulkhead.
            if (!new String(json, StandardCharsets.UTF_8).contains("\"" + PREFIX)) {
                continue;
            }
            for (String key : ConfigurationMetadataRepositoryJsonBuilder.create(new ByteArrayInputStream(json)).build()
                    .getAllProperties().keySet()) {
                if (key.startsWith(PREFIX)) {
                    keys.add(key);
                }
            }
        }
        assertThat(keys).as("db.bulkhead.* properties in META-INF/spring-configuration-metadata.json").isNotEmpty();
        return keys;
    }

    /** The keys of the reference's table rows, each with the number of rows that document it. */
    private static Map<String, Integer> documentedKeys() throws IOException {
        Map<String, Integer> keys = new TreeMap<>();
        for (String line : Files.readAllLines(RepositoryFiles.path(REFERENCE.toString()), StandardCharsets.UTF_8)) {
            Matcher row = KEY_ROW.matcher(line.strip());
            if (row.find()) {
                keys.merge(row.group(1), 1, Integer::sum);
            }
        }
        assertThat(keys).as("keys documented in %s", REFERENCE).isNotEmpty();
        return keys;
    }
}
