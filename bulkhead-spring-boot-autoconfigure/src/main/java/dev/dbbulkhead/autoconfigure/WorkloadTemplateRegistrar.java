package dev.dbbulkhead.autoconfigure;

import dev.dbbulkhead.spring.BulkheadTemplate;
import java.util.Map;
import java.util.Set;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.EnvironmentAware;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;

/**
 * Defines one {@link BulkheadTemplate} bean per configured workload, named after the workload so that
 * {@code @Qualifier("orders")} injects it. A name the application already uses for a bean of its own is
 * left alone: the user's bean wins. Runs after the application's own configuration has been read, as
 * auto-configuration always does.
 */
final class WorkloadTemplateRegistrar implements ImportBeanDefinitionRegistrar, EnvironmentAware {

    /** The bean that builds the templates; see {@link BulkheadAutoConfiguration}. */
    static final String FACTORY_BEAN_NAME = "dbBulkheadTemplateFactory";

    private Environment environment;

    @Override
    public void setEnvironment(Environment environment) {
        this.environment = environment;
    }

    @Override
    public void registerBeanDefinitions(AnnotationMetadata importingClassMetadata, BeanDefinitionRegistry registry) {
        for (String workload : workloadNames()) {
            if (!registry.containsBeanDefinition(workload)) {
                registry.registerBeanDefinition(workload, templateDefinition(workload));
            }
        }
    }

    /** Only the names: the values are bound and validated with the properties bean, where errors are reported. */
    private Set<String> workloadNames() {
        return Binder.get(environment)
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
        // Explicitly eager: bad values fail start-up even with spring.main.lazy-initialization=true.
        definition.setLazyInit(false);
        return definition;
    }
}
