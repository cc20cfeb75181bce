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
        return rules.judge(Arrays.stream(classNames).map(Frame::new));
    }

    private static CallerRules.Verdict judge(String... classNames) {
        return judge(CallerRules.defaults(), classNames);
    }

    @Test
    void theApplicationFrameIsTheFirstBelowThePoolTheFrameworksTheirProxiesAndTheTestLibraries() {
        CallerRules.Verdict verdict = judge(WatchedDataSource.class.getName(),
                "org.hibernate.engine.jdbc.connections.internal.DatasourceConnectionProviderImpl",
                "org.springframework.orm.jpa.JpaTransactionManager",
                "jdk.proxy2.$Proxy123",
                "com.example.owners.OwnerRepository$$SpringCGLIB$$0",
                "com.example.owners.Owner$HibernateProxy$xyz",
                "com.example.owners.$Proxy7",
                "com.example.owners.OwnerController",
                "org.apache.catalina.core.ApplicationFilterChain");
        CallerRules.Verdict inATest = judge(WatchedDataSource.class.getName(),
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
    void withoutAnApplicationFrameTheNearestFrameBelowThePoolIsTheSite() {
        CallerRules.Verdict verdict = judge(WatchedDataSource.class.getName(),
                "org.springframework.jdbc.datasource.DataSourceUtils", "java.lang.Thread");

        assertThat(verdict.site().className()).isEqualTo("org.springframework.jdbc.datasource.DataSourceUtils");
        assertThat(verdict.site().application()).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"org.springframework.jdbc.datasource.init.ScriptUtils",
            "org.springframework.boot.sql.init.AbstractScriptDatabaseInitializer",
            "org.springframework.boot.jdbc.init.DataSourceScriptDatabaseInitializer",
            "org.springframework.boot.jdbc.health.DataSourceHealthIndicator",
            "org.flywaydb.core.internal.jdbc.JdbcConnectionFactory", "liquibase.database.jvm.JdbcConnection",
            "org.hibernate.engine.jdbc.env.internal.JdbcEnvironmentInitiator",
            "org.hibernate.tool.schema.internal.SchemaCreatorImpl"})
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
        CallerRules rules = CallerRules.defaults().recognising(List.of("com.example.batch", "com.example.Warmer"));

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
