package dev.dbbulkhead.autoconfigure;

import dev.dbbulkhead.transaction.BulkheadTemplate;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanClassLoaderAware;
import org.springframework.beans.factory.annotation.AnnotatedBeanDefinition;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.AutowireCandidateQualifier;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.EnvironmentAware;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.util.ClassUtils;

/**
 * Defines one {@link BulkheadTemplate} bean per configured workload, qualified with the workload's name so that
 * {@code @Qualifier("orders")} injects it, and named after it when that name is free. An application's own
 * {@code BulkheadTemplate} bean of that name wins. A workload named like any other bean of the application (a
 * {@code @DbBulkhead("orders")} class {@code Orders} is bean {@code orders}) leaves that bean alone and gets its
 * template under a name no application uses. Runs after the application's own configuration has been read, as
 * auto-configuration always does.
 */
final class WorkloadTemplateRegistrar implements ImportBeanDefinitionRegistrar, EnvironmentAware, BeanClassLoaderAware {

    /** The bean that builds the templates; see {@link BulkheadAutoConfiguration}. */
    static final String FACTORY_BEAN_NAME = "dbBulkheadTemplateFactory";

    /** The bean name of a template whose workload's name the application uses already, before the workload. */
    static final String TAKEN_NAME_PREFIX = BulkheadTemplate.class.getName() + "#";

    private @Nullable Environment environment;
    private @Nullable ClassLoader classLoader;

    @Override
    public void setEnvironment(Environment environment) {
        this.environment = environment;
    }

    @Override
    public void setBeanClassLoader(ClassLoader classLoader) {
        this.classLoader = classLoader;
    }

    @Override
    public void registerBeanDefinitions(AnnotationMetadata importingClassMetadata, BeanDefinitionRegistry registry) {
        // Before anything binds them: the binder would drop what is unknown and rewrite what it cannot hold.
        BulkheadPropertiesCheck.check(Objects.requireNonNull(environment, "the environment Spring sets before registration"));
        for (String workload : workloadNames()) {
            if (!registry.isBeanNameInUse(workload)) {
                registry.registerBeanDefinition(workload, templateDefinition(workload));
            } else if (!definesTemplate(registry, workload)) {
                registry.registerBeanDefinition(TAKEN_NAME_PREFIX + workload, templateDefinition(workload));
            }
        }
    }

    /**
     * Whether the application's own definition of bean {@code name} makes a {@link BulkheadTemplate}, read from its
     * metadata alone: nothing may be instantiated while definitions are still being registered.
     */
    private boolean definesTemplate(BeanDefinitionRegistry registry, String name) {
        if (!registry.containsBeanDefinition(name)) {
            return false; // an alias of another bean
        }
        BeanDefinition definition = registry.getBeanDefinition(name);
        String typeName = definition instanceof AnnotatedBeanDefinition annotated
                && annotated.getFactoryMethodMetadata() != null
                ? annotated.getFactoryMethodMetadata().getReturnTypeName() : definition.getBeanClassName();
        if (typeName == null) {
            return BulkheadTemplate.class.isAssignableFrom(definition.getResolvableType().toClass());
        }
        try {
            return BulkheadTemplate.class.isAssignableFrom(ClassUtils.forName(typeName, classLoader));
        } catch (ClassNotFoundException | LinkageError unknown) {
            return false;
        }
    }

    /** Only the names: the values are bound and validated with the properties bean, where errors are reported. */
    private Set<String> workloadNames() {
        return Binder.get(Objects.requireNonNull(environment, "the environment Spring sets before registration"))
                .bind(BulkheadProperties.PREFIX + ".workloads", Bindable.mapOf(String.class, Object.class))
                .orElseGet(Map::of)
                .keySet();
    }

    private static RootBeanDefinition templateDefinition(String workload) {
        RootBeanDefinition definition = new RootBeanDefinition();
        definition.setTargetType(BulkheadTemplate.class);
        definition.setFactoryBeanName(FACTORY_BEAN_NAME);
        definition.setFactoryMethodName("create");
        definition.getConstructorArgumentValues().addGenericArgumentValue(workload);
        definition.addQualifier(new AutowireCandidateQualifier(Qualifier.class, workload));
        // Explicitly eager: bad values fail start-up even with spring.main.lazy-initialization=true.
        definition.setLazyInit(false);
        return definition;
    }
}
