package dev.dbbulkhead.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;

import dev.dbbulkhead.testing.RepositoryFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.config.YamlPropertiesFactoryBean;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.core.io.ByteArrayResource;

/**
 * Every configuration the README and the how-tos show, copied as written, passes start-up's checks of the values
 * without a warning: a page's example must do what the page says, and a queue without a wait, a lock timeout that can
 * never fire or a reserve that holds back nothing would not.
 */
class DocumentedConfigurationsTests {

    private static final Pattern YAML_BLOCK = Pattern.compile("```ya?ml\n(.*?)```", Pattern.DOTALL);

    @Test
    void everyConfigurationOfTheReadmeAndTheHowTosPassesStartUpsChecksWithoutAWarning() throws IOException {
        List<String> checked = new ArrayList<>();
        List<String> findings = new ArrayList<>();
        for (Path page : pages()) {
            Matcher block = YAML_BLOCK.matcher(Files.readString(page));
            while (block.find()) {
                Map<Object, Object> properties = flattened(block.group(1));
                if (properties.keySet().stream().noneMatch(key -> key.toString().startsWith("db.bulkhead.workloads."))) {
                    continue;
                }
                String where = page.getFileName() + " at offset " + block.start();
                BulkheadProperties bound = new Binder(new MapConfigurationPropertySource(properties))
                        .bindOrCreate(BulkheadProperties.PREFIX, BulkheadProperties.class);
                assertThatNoException().as(where).isThrownBy(() -> new ResolvedWorkloads(bound));
                new ResolvedWorkloads(bound).settingsThatCannotAct()
                        .forEach(finding -> findings.add(where + ": " + finding));
                checked.add(where);
            }
        }
        assertThat(checked).as("configurations with workloads").hasSizeGreaterThanOrEqualTo(10);
        assertThat(findings).as("settings that cannot act as written").isEmpty();
    }

    private static Map<Object, Object> flattened(String yaml) {
        YamlPropertiesFactoryBean factory = new YamlPropertiesFactoryBean();
        factory.setResources(new ByteArrayResource(yaml.getBytes(StandardCharsets.UTF_8)));
        Properties properties = factory.getObject();
        return properties == null ? Map.of() : properties;
    }

    /** README.md and every how-to: the pages whose examples a newcomer copies. */
    private static List<Path> pages() throws IOException {
        List<Path> pages = new ArrayList<>(List.of(RepositoryFiles.path("README.md")));
        try (Stream<Path> howTos = Files.list(RepositoryFiles.path("docs/how-to"))) {
            howTos.filter(page -> page.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        return pages;
    }
}
