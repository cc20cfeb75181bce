package dev.dbbulkhead.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.JarFile;
import java.util.stream.Collectors;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The published jars, as an application's class path has them, each name the module a modular application
 * requires them by. (Run with {@code verify}: a reactor build that stops at {@code test} puts the modules' class
 * folders on the class path instead of their jars.)
 */
class PublishedJarsTests {

    @ParameterizedTest(name = "{0}")
    @CsvSource(textBlock = """
            bulkhead-core, dev.dbbulkhead.core
            bulkhead-spring-boot-autoconfigure, dev.dbbulkhead.spring.boot.autoconfigure
            bulkhead-spring-boot-starter, dev.dbbulkhead.spring.boot.starter
            bulkhead-spring-boot-test, dev.dbbulkhead.spring.boot.test
            """)
    void eachPublishedJarCarriesAnAutomaticModuleName(String artifactId, String moduleName) throws IOException {
        List<File> jars = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .map(File::new)
                .filter(entry -> entry.getName().startsWith(artifactId + "-") && entry.getName().endsWith(".jar")
                        && !entry.getName().contains("-sources") && !entry.getName().contains("-javadoc")
                        && !entry.getName().contains("-tests"))
                .collect(Collectors.toList());
        assertThat(jars).as("the jar of %s on the class path", artifactId).hasSize(1);
        Map<String, String> manifest = new LinkedHashMap<>();
        try (JarFile jar = new JarFile(jars.get(0))) {
            jar.getManifest().getMainAttributes().forEach((key, value) -> manifest.put(key.toString(), value.toString()));
        }
        assertThat(manifest).containsEntry("Automatic-Module-Name", moduleName);
    }
}
