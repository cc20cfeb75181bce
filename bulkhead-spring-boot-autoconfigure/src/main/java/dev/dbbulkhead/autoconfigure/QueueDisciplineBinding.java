package dev.dbbulkhead.autoconfigure;

import dev.dbbulkhead.gate.QueueDiscipline;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.context.properties.ConfigurationPropertiesBinding;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;
import org.springframework.core.convert.converter.Converter;

/**
 * Binds {@code queue.discipline} as Spring Boot binds any enum (case, dashes and underscores ignored), and refuses
 * the discipline's former name {@code adaptive} — which now means only the adaptive concurrency limit — with its new
 * spelling, rather than with a bare list of the values allowed.
 */
@Configuration(proxyBeanMethods = false)
@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
final class QueueDisciplineBinding {

    /** The name {@link QueueDiscipline#CODEL} had before it was named for what it is. */
    static final String FORMER_CODEL_NAME = "adaptive";

    @Bean
    @ConfigurationPropertiesBinding
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static Converter<String, QueueDiscipline> dbBulkheadQueueDisciplineConverter() {
        return new QueueDisciplineConverter();
    }

    /** A class of its own rather than a lambda: the binder finds the converter's types from its generic interface. */
    static final class QueueDisciplineConverter implements Converter<String, QueueDiscipline> {

        @Override
        public QueueDiscipline convert(String source) {
            String wanted = normalised(source);
            for (QueueDiscipline discipline : QueueDiscipline.values()) {
                if (normalised(discipline.name()).equals(wanted)) {
                    return discipline;
                }
            }
            if (wanted.equals(normalised(FORMER_CODEL_NAME))) {
                throw new IllegalArgumentException("the queue discipline '" + FORMER_CODEL_NAME + "' is now called '"
                        + lowerCase(QueueDiscipline.CODEL) + "' (CoDel with adaptive LIFO; 'adaptive' names only the"
                        + " adaptive limit, limit.mode): write queue.discipline: " + lowerCase(QueueDiscipline.CODEL));
            }
            throw new IllegalArgumentException("no queue discipline '" + source + "': it is one of "
                    + Arrays.stream(QueueDiscipline.values()).map(QueueDisciplineConverter::lowerCase)
                            .collect(Collectors.joining(", ")));
        }

        private static String lowerCase(QueueDiscipline discipline) {
            return discipline.name().toLowerCase(Locale.ROOT);
        }

        private static String normalised(String value) {
            return value.trim().replace("-", "").replace("_", "").toUpperCase(Locale.ROOT);
        }
    }
}
