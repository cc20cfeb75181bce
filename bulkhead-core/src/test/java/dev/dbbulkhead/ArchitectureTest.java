package dev.dbbulkhead;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.equivalentTo;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.aot.hint.annotation.Reflective;
import org.springframework.aot.hint.annotation.SimpleReflectiveProcessor;

/** The gate is mechanism only: no framework reaches into it, so it serves every form and every framework. */
class ArchitectureTest {

    private static JavaClasses productionClasses;

    @BeforeAll
    static void importProductionClasses() {
        productionClasses = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.dbbulkhead");
    }

    @Test
    void theGateTheLimitAndThePlainJdbcFormImportNeitherSpringNorMicrometer() {
        noClasses()
                .that().resideInAnyPackage("dev.dbbulkhead", "dev.dbbulkhead.gate..", "dev.dbbulkhead.jdbc..",
                        "dev.dbbulkhead.fleet..", "dev.dbbulkhead.limit..")
                .should().dependOnClassesThat(resideInAnyPackage("org.springframework..", "io.micrometer..")
                        // An annotation whose type is missing is ignored by the JVM: @DbBulkhead may carry
                        // Spring's AOT marker (and, as its default value, the marker's processor).
                        .and(not(equivalentTo(Reflective.class).or(equivalentTo(SimpleReflectiveProcessor.class)))))
                .because("the core runs without Spring or Micrometer on the class path")
                .check(productionClasses);
    }

    @Test
    void theGateKnowsNothingOfJdbcOrOfTheFormsBuiltOnIt() {
        noClasses()
                .that().resideInAPackage("dev.dbbulkhead.gate..")
                .should().dependOnClassesThat().resideInAnyPackage("java.sql..", "javax.sql..",
                        "dev.dbbulkhead.jdbc..", "dev.dbbulkhead.spring..")
                .because("the gate is the mechanism; the JDBC and Spring forms build on it, not the other way round")
                .check(productionClasses);
    }
}
