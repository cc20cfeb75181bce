package dev.dbbulkhead.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.transaction.BulkheadRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.configurationmetadata.ConfigurationMetadataProperty;
import org.springframework.boot.configurationmetadata.ConfigurationMetadataRepositoryJsonBuilder;
import org.springframework.boot.configurationmetadata.ValueProvider;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/** What IDEs are told about the keys, and the keys as environment variables, as docs/reference/configuration.md documents them. */
class ConfigurationMetadataTests {

    @Test
    void dataSourceAndTransactionManagerAreHintedAsReferencesToBeansOfTheirType() throws Exception {
        Map<String, ConfigurationMetadataProperty> properties = generatedMetadata();
        assertThat(beanReferenceTarget(properties.get("db.bulkhead.defaults.data-source")))
                .isEqualTo("javax.sql.DataSource");
        assertThat(beanReferenceTarget(properties.get("db.bulkhead.defaults.transaction-manager")))
                .isEqualTo("org.springframework.transaction.PlatformTransactionManager");
    }

    @Test
    void workloadsBindFromEnvironmentVariablesWithTheirNameInCapitalsAndKeysWithoutDashes() {
        new ApplicationContextRunner()
                .with(SharedDatabase::onBootJdbc)
                .withConfiguration(AutoConfigurations.of(BulkheadAutoConfiguration.class))
                .withInitializer(context -> context.getEnvironment().getPropertySources().addFirst(
                        new SystemEnvironmentPropertySource(
                                "test-" + StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                                Map.of("DB_BULKHEAD_WORKLOADS_ORDERS_MAXCONCURRENT", "7",
                                        "DB_BULKHEAD_WORKLOADS_ORDERS_QUEUEWAIT", "250ms",
                                        "DB_BULKHEAD_DEFAULTS_MAXQUEUED", "3"))))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    BulkheadRegistry registry = context.getBean(BulkheadRegistry.class);
                    assertThat(registry.names()).containsExactly("orders");
                    assertThat(registry.template("orders").gate().config().maxConcurrent()).isEqualTo(7);
                    assertThat(registry.template("orders").gate().config().maxQueued()).isEqualTo(3);
                    assertThat(registry.template("orders").gate().config().queueWait())
                            .isEqualTo(Duration.ofMillis(250));
                });
    }

    /** Every property of the metadata the build generated, as an IDE reads it. */
    static Map<String, ConfigurationMetadataProperty> generatedMetadata() throws IOException {
        URL metadata = BulkheadProperties.class.getClassLoader().getResource("META-INF/spring-configuration-metadata.json");
        assertThat(metadata).isNotNull();
        try (InputStream json = metadata.openStream()) {
            return ConfigurationMetadataRepositoryJsonBuilder.create(json).build().getAllProperties();
        }
    }

    private static Object beanReferenceTarget(ConfigurationMetadataProperty property) {
        assertThat(property).isNotNull();
        ValueProvider provider = property.getHints().getValueProviders().getFirst();
        assertThat(provider.getName()).isEqualTo("spring-bean-reference");
        return provider.getParameters().get("target");
    }
}
