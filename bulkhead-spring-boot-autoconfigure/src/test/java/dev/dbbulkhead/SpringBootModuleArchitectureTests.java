package dev.dbbulkhead;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaAccess;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import dev.dbbulkhead.gate.AdmissionGate;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;

/**
 * The Spring Boot module is laid out as Spring Boot lays out a feature: mechanisms in packages of their own
 * ({@code dev.dbbulkhead.transaction}, {@code .metrics}, {@code .observation}, {@code .actuate.endpoint},
 * {@code .web.servlet}, {@code .budget}, {@code .fleet.support}, {@code .annotation}), the auto-configurations that
 * wire them in {@code dev.dbbulkhead.autoconfigure} and its sub-packages.
 */
class SpringBootModuleArchitectureTests {

    private static final String AUTO_CONFIGURATION = "dev.dbbulkhead.autoconfigure..";

    /** A call of, or a reference to, a method of the gate that sets its B. */
    private static final DescribedPredicate<JavaAccess<?>> SETTERS_OF_B = DescribedPredicate.describe(
            "a setter of a gate's B", access -> access.getTargetOwner().isEquivalentTo(AdmissionGate.class)
                    && Set.of("resize", "resizeConcurrent").contains(access.getTarget().getName()));

    private static JavaClasses moduleClasses;

    @BeforeAll
    static void importThisModulesClassesOnly() {
        // The compiled main classes of this module, not the core's: the rules are about this module's packages.
        moduleClasses = new ClassFileImporter().importPath(Path.of("target", "classes"));
    }

    @Test
    void aMechanismNeverReachesIntoTheAutoConfiguration() {
        noClasses()
                .that().resideOutsideOfPackage(AUTO_CONFIGURATION)
                .should().dependOnClassesThat().resideInAPackage(AUTO_CONFIGURATION)
                .because("a mechanism is usable and testable without the auto-configuration that wires it in")
                .check(moduleClasses);
    }

    @Test
    void autoConfigurationsLiveInTheAutoConfigurePackages() {
        classes()
                .that().areAnnotatedWith(AutoConfiguration.class)
                .should().resideInAPackage(AUTO_CONFIGURATION)
                .andShould().haveModifier(JavaModifier.FINAL)
                .check(moduleClasses);
    }

    @Test
    void noClassOfTheModuleSetsAGatesBButThroughItsConcurrencyCeiling() {
        noClasses()
                .should().accessTargetWhere(SETTERS_OF_B)
                .because("B has one owner in the core, which the endpoint, the fleet share and the database's limit"
                        + " all ask: a writer past it would undo a cap, or be undone by it")
                .check(moduleClasses);
    }

    @Test
    void anEndpointHasExactlyOnePublicConstructor() {
        classes()
                .that().areAnnotatedWith(Endpoint.class)
                .should(new ArchCondition<>("have exactly one public constructor") {
                    @Override
                    public void check(JavaClass endpoint, ConditionEvents events) {
                        long constructors = endpoint.getConstructors().stream()
                                .filter(constructor -> constructor.getModifiers().contains(JavaModifier.PUBLIC))
                                .count();
                        events.add(new SimpleConditionEvent(endpoint, constructors == 1, endpoint.getName()
                                + " has " + constructors + " public constructors"));
                    }
                })
                .because("the auto-configuration builds it with one, and every other would be public API that only"
                        + " passes defaults along")
                .check(moduleClasses);
    }

    @Test
    void noTwoPackagesOfTheModuleDependOnEachOther() {
        slices().matching("dev.dbbulkhead.(**)").should().beFreeOfCycles().check(moduleClasses);
    }
}
