package dev.dbbulkhead.jdbc.ungated;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.lang.invoke.MethodType;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** How a borrow's stack is read, on stacks written out as the JVM would show them, nearest frame first. */
class CallerRulesTests {

    private static CallerRules.Verdict judge(CallerRules rules, String... classNames) {
        return rules.judge(Arrays.stream(classNames).<StackWalker.StackFrame>map(Frame::new).toList());
    }

    private static CallerRules.Verdict judge(String... classNames) {
        return judge(CallerRules.defaults(), classNames);
    }

    /** The rules of an application in {@code com.example}. */
    private static final CallerRules EXAMPLE = CallerRules.defaults().withApplicationPackages(List.of("com.example"));

    /** The stack of a PetClinic request whose model-attribute loader borrows through a Spring Data repository. */
    private static final String[] PETCLINIC_LOADER = {WatchedDataSource.class.getName(),
            "org.springframework.orm.jpa.JpaTransactionManager",
            "org.springframework.transaction.interceptor.TransactionInterceptor",
            "org.springframework.samples.petclinic.owner.OwnerRepository$$SpringCGLIB$$0",
            "jdk.proxy2.$Proxy141",
            "org.springframework.samples.petclinic.owner.PetController",
            "jdk.internal.reflect.DirectMethodHandleAccessor", "java.lang.reflect.Method",
            "org.springframework.web.method.support.InvocableHandlerMethod",
            "org.springframework.web.method.annotation.ModelFactory",
            "org.springframework.web.servlet.DispatcherServlet",
            "dev.dbbulkhead.web.servlet.BulkheadRejectionFilter",
            "org.apache.catalina.core.ApplicationFilterChain", "java.lang.Thread"};

    @Test
    void theApplicationFrameIsTheFirstBelowThePoolTheFrameworksTheirProxiesAndTheTestLibraries() {
        CallerRules.Verdict verdict = judge(EXAMPLE, WatchedDataSource.class.getName(),
                "org.hibernate.engine.jdbc.connections.internal.DatasourceConnectionProviderImpl",
                "org.springframework.orm.jpa.JpaTransactionManager",
                "jdk.proxy2.$Proxy123",
                "com.example.owners.OwnerRepository$$SpringCGLIB$$0",
                "com.example.owners.Owner$HibernateProxy$xyz",
                "com.example.owners.$Proxy7",
                "com.example.owners.OwnerController",
                "org.apache.catalina.core.ApplicationFilterChain");
        CallerRules.Verdict inATest = judge(EXAMPLE, WatchedDataSource.class.getName(),
                "org.springframework.jdbc.core.JdbcTemplate", "org.assertj.core.api.ThrowableAssert",
                "com.example.owners.OwnerPagesTests", "org.junit.platform.commons.util.ReflectionUtils");

        assertThat(verdict.recognisedBy()).isNull();
        assertThat(verdict.site()).isNotNull();
        assertThat(verdict.site().className()).isEqualTo("com.example.owners.OwnerController");
        assertThat(verdict.site().application()).isTrue();
        assertThat(inATest.site().className()).as("the test, not the assertion library that called it")
                .isEqualTo("com.example.owners.OwnerPagesTests");
    }

    @Test
    void aGeneratedClassStandsForTheClassItSubclassesAndAJdkProxyForNone() {
        assertThat(CallerRules.userClassOf("com.example.Ledger$$SpringCGLIB$$0")).isEqualTo("com.example.Ledger");
        assertThat(CallerRules.userClassOf("com.example.Owner$HibernateProxy$Xb2")).isEqualTo("com.example.Owner");
        assertThat(CallerRules.userClassOf("com.example.Owner$ByteBuddy$Q1$$x")).isEqualTo("com.example.Owner");
        assertThat(CallerRules.userClassOf("jdk.proxy2.$Proxy41")).isNull();
        assertThat(CallerRules.userClassOf("com.example.Ledger")).isNull();
    }

    @Test
    void withoutAnApplicationFrameTheNearestFrameBelowThePoolIsTheSiteAndAGuess() {
        CallerRules.Verdict verdict = judge(WatchedDataSource.class.getName(),
                "org.springframework.jdbc.datasource.DataSourceUtils", "java.lang.Thread");

        assertThat(verdict.site().className()).isEqualTo("org.springframework.jdbc.datasource.DataSourceUtils");
        assertThat(verdict.site().application()).isFalse();
    }

    @Test
    void anApplicationInsideAFrameworksPackageIsNamedByItsOwnFrameNotByAFrameworkOrThisLibrary() {
        CallerRules petclinic = CallerRules.defaults()
                .withApplicationPackages(List.of("org.springframework.samples.petclinic"));

        CallerRules.Verdict named = judge(petclinic, PETCLINIC_LOADER);
        CallerRules.Verdict undeclared = judge(PETCLINIC_LOADER);

        assertThat(named.site().className()).isEqualTo("org.springframework.samples.petclinic.owner.PetController");
        assertThat(named.site().application()).isTrue();
        assertThat(undeclared.site().className()).as("a guess, but never this library's filter")
                .isEqualTo("org.springframework.orm.jpa.JpaTransactionManager");
        assertThat(undeclared.site().application()).isFalse();
    }

    @Test
    void withoutAnApplicationFrameTheGuessIsTheNearestFrameOfNoKnownLibraryAndNeverATestRunnerOrThisLibrary() {
        CallerRules.Verdict inATest = judge(EXAMPLE, WatchedDataSource.class.getName(),
                "org.springframework.jdbc.core.JdbcTemplate", "dev.dbbulkhead.transaction.BulkheadTemplate",
                "com.other.cache.Warmer", "jdk.internal.reflect.DirectMethodHandleAccessor",
                "org.junit.platform.commons.util.ReflectionUtils",
                "org.apache.maven.surefire.booter.ForkedBooter");
        CallerRules.Verdict onlyRunners = judge(EXAMPLE, WatchedDataSource.class.getName(),
                "jdk.internal.reflect.DirectMethodHandleAccessor", "org.junit.jupiter.engine.execution.MethodInvocation",
                "org.apache.maven.surefire.booter.ForkedBooter");

        assertThat(inATest.site().className()).isEqualTo("com.other.cache.Warmer");
        assertThat(inATest.site().application()).isFalse();
        assertThat(onlyRunners.site().className()).isEqualTo("unknown");
    }

    @Test
    void aGuessedFrameworkFrameIsNeverOfferedForAllowingWhileTheApplicationsOwnFrameIs() {
        DetectionSettings settings = new DetectionSettings(CallerRules.defaults(), false, 10, "Allow it, or gate it.",
                "Declare the application's packages.");
        CallSite framework = judge(PETCLINIC_LOADER).site();
        CallSite unknownCode = judge(WatchedDataSource.class.getName(), "org.springframework.jdbc.core.JdbcTemplate",
                "com.other.cache.Warmer").site();
        CallSite own = judge(EXAMPLE, WatchedDataSource.class.getName(), "com.example.Loader").site();

        assertThat(settings.describe("main", framework)).contains("a guess", "Do not allow it",
                "Declare the application's packages.").doesNotContain("Allow it, or gate it.");
        assertThat(settings.describe("main", unknownCode)).contains("a guess", "declare the application's packages.",
                "Allow it, or gate it.");
        assertThat(settings.describe("main", own)).doesNotContain("guess").endsWith("Allow it, or gate it.");
    }

    @ParameterizedTest
    @ValueSource(strings = {"org.springframework", "org", "dev.dbbulkhead", "dev", "com.zaxxer", "com"})
    void anApplicationPackageThatHoldsALibraryOrTheJdkIsRefusedNamingIt(String name) {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> CallerRules.defaults().withApplicationPackages(List.of("com.example", name)))
                .withMessageContaining("'" + name + "' holds the library");
    }

    @ParameterizedTest
    @ValueSource(strings = {"java", "jdk.internal.reflect", "java.util", "org.junit", "org.apache.maven.surefire.booter"})
    void anApplicationPackageInsideTheJdkOrATestRunnerIsRefusedNamingIt(String name) {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> CallerRules.defaults().withApplicationPackages(List.of(name)))
                .withMessageContaining("'" + name + "' lies in");
    }

    @ParameterizedTest
    @ValueSource(strings = {"com.example.*", "", "com..example"})
    void anApplicationPackageThatIsNoPackageNameIsRefusedNamingIt(String name) {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> CallerRules.defaults().withApplicationPackages(List.of(name)))
                .withMessageContaining("'" + name + "' is no package name");
    }

    @Test
    void recognisedCallersStillWinOverTheApplicationsFrame() {
        CallerRules rules = EXAMPLE.recognising(List.of("com.example.batch"));

        CallerRules.Verdict verdict = judge(rules, WatchedDataSource.class.getName(), "com.example.Repository",
                "com.example.batch.NightlyJob");

        assertThat(verdict.recognisedBy()).isEqualTo("com.example.batch");
        assertThat(rules.applicationPackages()).containsExactly("com.example");
    }

    @ParameterizedTest
    @ValueSource(strings = {"org.springframework.jdbc.datasource.init.ScriptUtils",
            "org.springframework.boot.sql.init.AbstractScriptDatabaseInitializer",
            "org.springframework.boot.jdbc.init.DataSourceScriptDatabaseInitializer",
            "org.springframework.boot.jdbc.health.DataSourceHealthIndicator",
            "org.flywaydb.core.internal.jdbc.JdbcConnectionFactory", "liquibase.database.jvm.JdbcConnection",
            "org.hibernate.engine.jdbc.env.internal.JdbcEnvironmentInitiator",
            "org.hibernate.tool.schema.internal.SchemaCreatorImpl",
            "org.springframework.test.context.transaction.TransactionalTestExecutionListener"})
    void infrastructureIsRecognisedWhereverItIsOnTheStack(String infrastructure) {
        CallerRules.Verdict verdict = judge(WatchedDataSource.class.getName(),
                "org.springframework.jdbc.core.JdbcTemplate", "com.example.db.migration.V2__Backfill",
                infrastructure, "com.example.Application");

        assertThat(verdict.site()).isNull();
        assertThat(CallerRules.defaults().recognised()).contains(verdict.recognisedBy());
        assertThat(infrastructure).startsWith(verdict.recognisedBy() + ".");
    }

    @Test
    void aRuleMatchesItsPackageItsClassAndNestedClassesButNoNameThatMerelyStartsAlike() {
        CallerRules rules = EXAMPLE.recognising(List.of("com.example.batch", "com.example.Warmer"));

        assertThat(judge(rules, "com.example.batch.nightly.Job").recognisedBy()).isEqualTo("com.example.batch");
        assertThat(judge(rules, "com.example.Warmer$Task").recognisedBy()).isEqualTo("com.example.Warmer");
        assertThat(judge(rules, "com.example.batchx.Job").site()).isNotNull();
        assertThat(judge(rules, "com.example.WarmerFactory").site()).isNotNull();
        assertThat(judge("org.flywaydbx.Tool").site().className()).isEqualTo("org.flywaydbx.Tool");
    }

    @ParameterizedTest
    @ValueSource(strings = {"com.example.*", "com.example.", "", " com.example", "com..example", "1com.example"})
    void aCallerThatIsNoPackageOrClassNameIsRefusedNamingIt(String caller) {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> CallerRules.defaults().recognising(List.of("com.example.batch", caller)))
                .withMessageContaining("'" + caller + "' is no package or class name");
    }

    @Test
    void aStackDeeperThanTheRulesReadIsJudgedOnItsNearestFrames() {
        String[] deep = new String[CallerRules.MAX_FRAMES + 1];
        Arrays.fill(deep, "org.springframework.Deep");
        deep[CallerRules.MAX_FRAMES] = "org.flywaydb.core.Flyway";

        assertThat(judge(deep).recognisedBy()).as("a frame past the bound is not read").isNull();
    }

    /** A frame of the given class, as StackWalker shows it. */
    private record Frame(String className) implements StackWalker.StackFrame {

        @Override
        public String getClassName() {
            return className;
        }

        @Override
        public String getMethodName() {
            return "call";
        }

        @Override
        public Class<?> getDeclaringClass() {
            throw new UnsupportedOperationException("the rules read names only");
        }

        @Override
        public int getByteCodeIndex() {
            return 0;
        }

        @Override
        public String getFileName() {
            return className.substring(className.lastIndexOf('.') + 1) + ".java";
        }

        @Override
        public int getLineNumber() {
            return 1;
        }

        @Override
        public boolean isNativeMethod() {
            return false;
        }

        @Override
        public StackTraceElement toStackTraceElement() {
            return new StackTraceElement(className, "call", getFileName(), 1);
        }

        @Override
        public MethodType getMethodType() {
            return MethodType.methodType(void.class);
        }

        @Override
        public String getDescriptor() {
            return "()V";
        }
    }
}
