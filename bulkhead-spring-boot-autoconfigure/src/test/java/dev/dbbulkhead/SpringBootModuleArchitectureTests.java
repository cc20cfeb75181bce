package dev.dbbulkhead;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfiguration;

/**
 * The Spring Boot module is laid out as Spring Boot lays out a feature: mechanisms in packages of their own
 * ({@code dev.dbbulkhead.transaction}, {@code .metrics}, {@code .observation}, {@code .actuate.endpoint},
 * {@code .web.servlet}, {@code .budget}, {@code .fleet.support}, {@code .annotation}), the auto-configurations that
 * wire them in {@code dev.dbbulkhead.autoconfigure} and its sub-packages.
 */
class SpringBootModuleArchitectureTests {

    private static final String AUTO_CONFIGURATION = "dev.dbbulkhead.autoconfigure..";

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
    void noTwoPackagesOfTheModuleDependOnEachOther() {
        slices().matching("dev.dbbulkhead.(**)").should().beFreeOfCycles().check(moduleClasses);
    }
}
