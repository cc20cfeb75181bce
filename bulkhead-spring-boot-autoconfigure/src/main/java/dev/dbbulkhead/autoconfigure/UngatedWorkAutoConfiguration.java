package dev.dbbulkhead.autoconfigure;

import dev.dbbulkhead.budget.ServerConnectionSlots;
import dev.dbbulkhead.fleet.FleetMember;
import dev.dbbulkhead.jdbc.ungated.CallerRules;
import dev.dbbulkhead.jdbc.ungated.DetectionSettings;
import dev.dbbulkhead.jdbc.ungated.JobRefusals;
import dev.dbbulkhead.jdbc.ungated.StackSampling;
import dev.dbbulkhead.jdbc.ungated.support.HealthEndpointOutsideGates;
import dev.dbbulkhead.jdbc.ungated.support.SkippedRunLog;
import dev.dbbulkhead.jdbc.ungated.support.StartUpGates;
import dev.dbbulkhead.jdbc.ungated.support.UngatedConnectionLog;
import dev.dbbulkhead.jdbc.ungated.support.UngatedStartUpReport;
import dev.dbbulkhead.jdbc.ungated.support.WatchedPoolPostProcessor;
import dev.dbbulkhead.jdbc.ungated.support.WatchedPools;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import java.util.ArrayList;
import java.util.List;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.actuate.endpoint.invoke.OperationInvokerAdvisor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurationPackages;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;

/**
 * Watches the pools the gates admit to for connections borrowed outside every gate
 * ({@code db.bulkhead.ungated.*}): counted, each call site logged once, summed up when the application is ready,
 * and refused in {@code fail} mode. A borrow's call site is its nearest frame in the application's packages: the
 * package of the {@code @SpringBootApplication} class (Spring Boot's auto-configuration packages) and
 * {@code db.bulkhead.ungated.application-packages}. Only where there are gates: with
 * {@code db.bulkhead.enabled=false} every connection would be ungated.
 */
@AutoConfiguration(after = BulkheadAutoConfiguration.class)
@ConditionalOnBean(BulkheadRegistry.class)
public final class UngatedWorkAutoConfiguration {

    private static final Log logger = LogFactory.getLog(UngatedWorkAutoConfiguration.class);

    private static final String PREFIX = BulkheadProperties.PREFIX + ".ungated.";

    /** db-bulkhead's own start-up checks, and fleet coordination, which borrow outside the gates by design. */
    private static final List<String> OWN_CALLERS = List.of(ServerConnectionSlots.class.getName(),
            PostgresOnlyTimeoutsCheck.class.getName(), FleetMember.class.getPackageName());

    /** What a reported borrow asks of the application. */
    static final String ADVICE = "Gate it: call it from a @DbBulkhead method or through a BulkheadTemplate. If it is"
            + " meant to run outside the gates, list its class or package in " + PREFIX + "allowed-callers, or run"
            + " it in UngatedWork.allow(...).";

    /** What a report whose call site is a guess asks of the application. */
    static final String PACKAGES_ADVICE = "List the application's packages in " + PREFIX + "application-packages so"
            + " that its own frame is named.";

    @Bean
    @ConditionalOnMissingBean
    WatchedPools dbBulkheadWatchedPools(BulkheadProperties properties, BeanFactory beanFactory) {
        BulkheadProperties.Ungated ungated = properties.getUngated();
        CallerRules rules = CallerRules.defaults().recognising(OWN_CALLERS)
                .withApplicationPackages(usableAutoConfigurationPackages(beanFactory));
        List<String> packages = ungated.getApplicationPackages();
        for (int i = 0; i < packages.size(); i++) {
            String name = packages.get(i);
            CallerRules sofar = rules;
            rules = ResolvedSettings.requireValid(PREFIX + "application-packages[" + i + "]", name,
                    value -> sofar.withApplicationPackages(List.of(value)));
        }
        List<String> allowed = ungated.getAllowedCallers();
        for (int i = 0; i < allowed.size(); i++) {
            String caller = allowed.get(i);
            CallerRules sofar = rules;
            rules = ResolvedSettings.requireValid(PREFIX + "allowed-callers[" + i + "]", caller,
                    value -> sofar.recognising(List.of(value)));
        }
        CallerRules all = rules;
        DetectionSettings settings = ResolvedSettings.requireValid(PREFIX + "max-call-sites",
                ungated.getMaxCallSites(), cap -> new DetectionSettings(all,
                        ungated.getMode() == BulkheadProperties.UngatedMode.FAIL, cap, ADVICE,
                        PACKAGES_ADVICE));
        WorkClassification work = WorkClassification.of(properties);
        String defaultWorkload = work.defaultWorkload();
        WatchedPools.AdmissionSettings admission = null;
        if (defaultWorkload != null) {
            // Opened once every singleton exists (dbBulkheadGatesOpening); a map look-up from then on.
            // Allowed callers are recognised by the stack alone, so it is read on every borrow outside the gates.
            admission = new WatchedPools.AdmissionSettings(new StartUpGates(), defaultWorkload, work.stackRules(),
                    new JobRefusals(new SkippedRunLog()),
                    allowed.isEmpty() ? StackSampling.defaults() : StackSampling.everyBorrow());
        }
        return new WatchedPools(settings, ungated.getMode() != BulkheadProperties.UngatedMode.OFF,
                new UngatedConnectionLog(), admission);
    }

    /**
     * The packages of the {@code @SpringBootApplication} class and of {@code @AutoConfigurationPackage}: none in a
     * context without them, as in a test that lists its configuration. One that cannot be the application's own (the
     * default package, or one holding a library, such as {@code org}) is left out and said so, as start-up cannot
     * fail for where the application class lies.
     */
    private static List<String> usableAutoConfigurationPackages(BeanFactory beanFactory) {
        if (!AutoConfigurationPackages.has(beanFactory)) {
            return List.of();
        }
        List<String> usable = new ArrayList<>();
        for (String name : AutoConfigurationPackages.get(beanFactory)) {
            try {
                CallerRules.defaults().withApplicationPackages(List.of(name));
                usable.add(name);
            } catch (IllegalArgumentException unusable) {
                logger.warn("The application's package '" + name + "' does not tell its frames from a library's, so"
                        + " call sites of ungated work are found without it: " + unusable.getMessage() + ". "
                        + PACKAGES_ADVICE);
            }
        }
        return usable;
    }

    /** Static, as a post-processor must be: it is created before the DataSource beans it watches. */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    @ConditionalOnMissingBean
    static WatchedPoolPostProcessor dbBulkheadWatchedPoolPostProcessor(ObjectProvider<BulkheadProperties> properties,
            ListableBeanFactory beanFactory, ObjectProvider<WatchedPools> pools) {
        return new WatchedPoolPostProcessor(() -> GatedDataSources.names(properties.getObject(), beanFactory), pools);
    }

    @Bean
    ExecutorThreadNames dbBulkheadExecutorThreadNames(BulkheadProperties properties,
            ObjectProvider<WatchedPools> pools, BeanFactory beanFactory) {
        return new ExecutorThreadNames(properties, pools, beanFactory);
    }

    /**
     * Opens the gates of admission where connections are taken once every singleton exists: before the web server,
     * the scheduler and the listener containers start, after the beans whose making borrows (the JPA bootstrap). A
     * separate bean, so that the gates open whichever of the starter's beans were made first.
     */
    @Bean
    SmartInitializingSingleton dbBulkheadGatesOpening(ObjectProvider<WatchedPools> pools,
            ObjectProvider<BulkheadRegistry> registry) {
        return () -> {
            WatchedPools watched = pools.getIfAvailable();
            WatchedPools.AdmissionSettings admission = watched == null ? null : watched.admissionSettings();
            if (admission != null) {
                admission.gates().open(registry.getObject());
            }
        };
    }

    /**
     * Runs the health endpoint outside the gates, marked where it begins: with the endpoint on the class path, as the
     * DataSource health indicator runs at any time and no borrow reads its stack to tell.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(OperationInvokerAdvisor.class)
    static final class HealthEndpointConfiguration {

        @Bean
        @ConditionalOnMissingBean
        HealthEndpointOutsideGates dbBulkheadHealthEndpointOutsideGates() {
            return new HealthEndpointOutsideGates();
        }
    }

    @Bean
    @ConditionalOnMissingBean
    UngatedStartUpReport dbBulkheadUngatedStartUpReport(WatchedPools pools,
            ObjectProvider<BulkheadRegistry> registry) {
        return new UngatedStartUpReport(pools, registry);
    }
}
