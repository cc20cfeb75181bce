package dev.dbbulkhead.autoconfigure.observation;

import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.beans.factory.annotation.AnnotatedBeanDefinition;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.condition.ConditionMessage;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.ConfigurationCondition;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.core.type.MethodMetadata;
import org.springframework.util.ClassUtils;

/**
 * Matches when something besides meter handlers may listen to the bulkhead observations: the
 * {@code db.bulkhead.*} meters are the metrics, so an observation only a meter handler would see costs every
 * operation and tells nothing new. In a registry Spring Boot builds, every handler is a bean, so the handler beans
 * tell; a registry the application builds itself, or an {@code ObservationRegistryCustomizer} (which may add handlers
 * of its own), is taken as listened to.
 */
final class ListenedToBeyondMetersCondition extends SpringBootCondition implements ConfigurationCondition {

    /** Read once the beans of the configurations before this one are registered, as {@code @ConditionalOnBean} is. */
    @Override
    public ConfigurationPhase getConfigurationPhase() {
        return ConfigurationPhase.REGISTER_BEAN;
    }

    private static final String METER_HANDLER = "io.micrometer.core.instrument.observation.MeterObservationHandler";
    private static final String REGISTRY_CUSTOMIZER =
            "org.springframework.boot.micrometer.observation.autoconfigure.ObservationRegistryCustomizer";
    private static final String BOOT_PACKAGE = "org.springframework.boot.";

    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
        ConditionMessage.Builder message = ConditionMessage.forCondition("Bulkhead observations listened to");
        ConfigurableListableBeanFactory beans = context.getBeanFactory();
        if (beans == null) {
            return ConditionOutcome.match(message.because("no bean factory to tell"));
        }
        for (String name : beans.getBeanNamesForType(ObservationRegistry.class, true, false)) {
            if (!builtBySpringBoot(beans, name)) {
                return ConditionOutcome.match(message.because("the ObservationRegistry '" + name
                        + "' is the application's own, whose handlers cannot be told"));
            }
        }
        ClassLoader classLoader = context.getClassLoader();
        Class<?> meterHandler = ClassUtils.isPresent(METER_HANDLER, classLoader)
                ? ClassUtils.resolveClassName(METER_HANDLER, classLoader) : null;
        for (String name : beans.getBeanNamesForType(ObservationHandler.class, true, false)) {
            Class<?> type = beans.getType(name, false);
            if (type == null || meterHandler == null || !meterHandler.isAssignableFrom(type)) {
                return ConditionOutcome.match(message.because("the observation handler '" + name
                        + "' is not a meter handler"));
            }
        }
        if (ClassUtils.isPresent(REGISTRY_CUSTOMIZER, classLoader) && beans.getBeanNamesForType(
                ClassUtils.resolveClassName(REGISTRY_CUSTOMIZER, classLoader), true, false).length > 0) {
            return ConditionOutcome.match(message.because("an ObservationRegistryCustomizer may add handlers"));
        }
        return ConditionOutcome.noMatch(message.because("only meter handlers would see them, and the db.bulkhead.*"
                + " meters already time the wait and the execution"));
    }

    private static boolean builtBySpringBoot(ConfigurableListableBeanFactory beans, String name) {
        if (!beans.containsBeanDefinition(name)) {
            return false;
        }
        BeanDefinition definition = beans.getMergedBeanDefinition(name);
        MethodMetadata factoryMethod = definition instanceof AnnotatedBeanDefinition annotated
                ? annotated.getFactoryMethodMetadata() : null;
        return factoryMethod != null && factoryMethod.getDeclaringClassName().startsWith(BOOT_PACKAGE);
    }
}
