package dev.dbbulkhead;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaAccess;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.limit.ConcurrencyCeiling;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The core is mechanism only and JDK only: no framework reaches into it, so it serves every form and every
 * framework, and a plain-JDBC application depends on it alone.
 */
class ArchitectureTests {

    /** A call of, or a reference to, a method of the gate that sets its B. */
    private static final DescribedPredicate<JavaAccess<?>> SETTERS_OF_B = DescribedPredicate.describe(
            "a setter of a gate's B", access -> access.getTargetOwner().isEquivalentTo(AdmissionGate.class)
                    && Set.of("resize", "resizeConcurrent").contains(access.getTarget().getName()));

    private static JavaClasses coreClasses;

    @BeforeAll
    static void importTheCoreModule() {
        coreClasses = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
                .importPackages("dev.dbbulkhead");
    }

    @Test
    void theWholeCoreDependsOnTheJdkAndOnJSpecifysAnnotationsOnly() {
        classes()
                .should().onlyDependOnClassesThat().resideInAnyPackage("dev.dbbulkhead..", "java..", "javax.sql..",
                        "org.jspecify.annotations..")
                .because("the core runs with nothing but the JDK on the class path")
                .check(coreClasses);
    }

    @Test
    void theGateKnowsNothingOfJdbcOrOfTheFormsBuiltOnIt() {
        noClasses()
                .that().resideInAPackage("dev.dbbulkhead.gate..")
                .should().dependOnClassesThat().resideInAnyPackage("java.sql..", "javax.sql..",
                        "dev.dbbulkhead.jdbc..", "dev.dbbulkhead.limit..", "dev.dbbulkhead.fleet..")
                .because("the gate is the mechanism; the limit, the JDBC form and the fleet build on it, not the"
                        + " other way round")
                .check(coreClasses);
    }

    @Test
    void noTypeInsideTheGateCallsBackUpIntoItsFace() {
        noClasses()
                .that().resideInAPackage("dev.dbbulkhead.gate")
                .and().doNotHaveFullyQualifiedName("dev.dbbulkhead.gate.AdmissionGate")
                // The callback through which the face hands itself out to an application's observers, once built.
                .and().doNotHaveFullyQualifiedName("dev.dbbulkhead.gate.GateInstrumentation")
                .should().dependOnClassesThat().haveFullyQualifiedName("dev.dbbulkhead.gate.AdmissionGate")
                .because("the gate's parts are wired by its face and given what they need (the shutdown, where a"
                        + " permit goes back to, the counts): a part that holds the face and calls it back runs the"
                        + " face's job in two places")
                .check(coreClasses);
    }

    @Test
    void theCountsOfEveryDisciplineAreReachedThroughTheirOneContract() {
        noClasses()
                .that().resideInAPackage("dev.dbbulkhead.gate")
                // The face picks the discipline once, as a gate is built; the disciplines are the counts themselves.
                .and().doNotHaveFullyQualifiedName("dev.dbbulkhead.gate.AdmissionGate")
                .and().haveNameNotMatching("dev\\.dbbulkhead\\.gate\\.(HandOffCounts|CoDelCounts|ScheduledCounts)(\\$.*)?")
                .should().dependOnClassesThat().haveFullyQualifiedName("dev.dbbulkhead.gate.ScheduledCounts")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("dev.dbbulkhead.gate.CoDelCounts")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("dev.dbbulkhead.gate.HandOffCounts")
                .because("the entry, the hand-out and the ledger wait and hand places through AdmissionCounts'"
                        + " contract (join, displace, a Wait, grantLentPlace): a cast to one discipline is a rule"
                        + " that holds for one discipline only")
                .check(coreClasses);
    }

    @Test
    void aGatesBIsWrittenOnlyThroughItsConcurrencyCeiling() {
        noClasses()
                .that().doNotHaveFullyQualifiedName(ConcurrencyCeiling.class.getName())
                .should().accessTargetWhere(SETTERS_OF_B)
                .because("B has one owner, which gives the gate the smaller of what is asked and what caps it: a"
                        + " writer past it would undo a cap, or be undone by it")
                .check(coreClasses);
    }

    @Test
    void noTwoPackagesOfTheCoreDependOnEachOther() {
        slices().matching("dev.dbbulkhead.(**)").should().beFreeOfCycles().check(coreClasses);
    }
}
