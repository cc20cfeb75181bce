package dev.dbbulkhead.jdbc.ungated;

import dev.dbbulkhead.jdbc.DataSourceDecorator;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * How the stack of a borrow outside every gate is read: which frames are libraries, passed over on the way to the
 * application's frame, and which callers are recognised infrastructure, which runs outside the gates by design and
 * is not reported. A name matches a rule when it is the named class (or one nested in it), or lies in the named
 * package or below it: {@code org.flywaydb} matches {@code org.flywaydb.core.Flyway}, not {@code org.flywaydbx.A}.
 * Immutable.
 */
public final class CallerRules {

    /** How deep a borrow's stack is read; a framework's stack down to the application is far shallower. */
    public static final int MAX_FRAMES = 256;

    /**
     * The JDK, pools, drivers, servlet containers, data-access frameworks, byte-code libraries, and the test
     * libraries that call a test's code (so that in a test suite the call site is the test's own frame): never the
     * application's own frame.
     */
    private static final List<String> LIBRARIES = List.of("java", "javax", "jdk", "sun", "com.sun", "jakarta",
            "com.zaxxer.hikari", "org.apache.commons.dbcp2", "org.apache.tomcat", "org.apache.catalina",
            "org.apache.coyote", "org.eclipse.jetty", "io.undertow", "io.netty", "reactor",
            "org.postgresql", "com.mysql", "org.mariadb", "oracle.jdbc", "com.microsoft.sqlserver", "org.h2",
            "org.hsqldb", "org.apache.derby", "net.ttddyy", "com.p6spy",
            "org.springframework", "org.hibernate", "org.jooq", "org.apache.ibatis", "org.mybatis", "org.aspectj",
            "io.micrometer", "net.bytebuddy", "kotlin", "kotlinx", "org.junit", "org.assertj");

    /**
     * Infrastructure that runs outside the gates by design: schema initialisation (Spring's script runner and
     * Spring Boot's SQL initialisation), migrations (Flyway, Liquibase), Spring Boot's DataSource health indicator,
     * and Hibernate's bootstrap (reading the database's metadata) and schema tooling.
     */
    private static final List<String> INFRASTRUCTURE = List.of("org.springframework.jdbc.datasource.init",
            "org.springframework.boot.sql.init", "org.springframework.boot.jdbc.init",
            "org.springframework.boot.jdbc.health", "org.flywaydb", "liquibase",
            "org.hibernate.engine.jdbc.env.internal", "org.hibernate.tool.schema");

    /** A Java package or class name, nested classes written with {@code $}. */
    private static final Pattern NAME = Pattern.compile(
            "\\p{javaJavaIdentifierStart}\\p{javaJavaIdentifierPart}*(\\.\\p{javaJavaIdentifierStart}\\p{javaJavaIdentifierPart}*)*");

    /**
     * The detector's classes on a borrow's stack, above the caller: never a call site. The last is the Spring side's
     * watch in front of a pool that keeps the pool's class, which hands borrows to a {@link WatchedDataSource}: named
     * here, as this module sees nothing of Spring.
     */
    private static final List<String> DETECTOR = List.of(WatchedDataSource.class.getName(),
            DataSourceDecorator.class.getName(),
            UngatedConnectionDetector.class.getName(), CallerRules.class.getName(),
            "dev.dbbulkhead.jdbc.ungated.support.WatchedPoolProxy");

    /** The call site of a stack with no frame outside the detector within reach. */
    private static final CallSite UNKNOWN = new CallSite("unknown", "unknown", null, -1, false);

    private static final CallerRules DEFAULTS = new CallerRules(INFRASTRUCTURE);

    private final List<String> recognised;

    private CallerRules(List<String> recognised) {
        this.recognised = List.copyOf(recognised);
    }

    /** The libraries and the recognised infrastructure above. */
    public static CallerRules defaults() {
        return DEFAULTS;
    }

    /**
     * These rules, with {@code callers} recognised as well.
     *
     * @param callers package or class names, such as {@code com.example.batch} or {@code com.example.CacheWarmer}
     * @throws IllegalArgumentException naming the first entry that is no package or class name
     */
    public CallerRules recognising(Collection<String> callers) {
        List<String> all = new ArrayList<>(recognised);
        for (String caller : callers) {
            if (caller == null || !NAME.matcher(caller).matches()) {
                throw new IllegalArgumentException("'" + caller + "' is no package or class name: each entry names"
                        + " a package (com.example.batch) or a class (com.example.CacheWarmer), without wildcards");
            }
            if (!all.contains(caller)) {
                all.add(caller);
            }
        }
        return new CallerRules(all);
    }

    /** The recognised callers, the built-in ones first. */
    public List<String> recognised() {
        return recognised;
    }

    /**
     * Reads a borrow's stack, nearest frame first.
     *
     * @return the recognised caller found anywhere within {@link #MAX_FRAMES}, else the call site
     */
    Verdict judge(Stream<StackWalker.StackFrame> frames) {
        StackWalker.StackFrame nearest = null;
        CallSite application = null;
        for (Iterator<StackWalker.StackFrame> it = frames.limit(MAX_FRAMES).iterator(); it.hasNext(); ) {
            StackWalker.StackFrame frame = it.next();
            String className = frame.getClassName();
            if (firstMatch(DETECTOR, className) != null) {
                continue;
            }
            String rule = firstMatch(recognised, className);
            if (rule != null) {
                return new Verdict(rule, null);
            }
            // Read on past the application's frame: a recognised caller may have called it.
            if (application == null && !isLibrary(className)) {
                application = CallSite.of(frame, true);
            }
            if (nearest == null) {
                nearest = frame;
            }
        }
        if (application != null) {
            return new Verdict(null, application);
        }
        return new Verdict(null, nearest == null ? UNKNOWN : CallSite.of(nearest, false));
    }

    private static boolean isLibrary(String className) {
        return firstMatch(LIBRARIES, className) != null || isGenerated(className);
    }

    /** Proxies and generated subclasses: CGLIB's and ByteBuddy's, Hibernate's, and JDK proxies in any package. */
    private static boolean isGenerated(String className) {
        int simpleName = className.lastIndexOf('.') + 1;
        return className.contains("$$") || className.startsWith("$Proxy", simpleName)
                || className.contains("$HibernateProxy") || className.contains("$ByteBuddy$");
    }

    private static @Nullable String firstMatch(List<String> names, String className) {
        for (String name : names) {
            if (className.startsWith(name) && (className.length() == name.length()
                    || className.charAt(name.length()) == '.' || className.charAt(name.length()) == '$')) {
                return name;
            }
        }
        return null;
    }

    @Override
    public String toString() {
        return "CallerRules[recognised=" + recognised + "]";
    }

    /**
     * What a borrow's stack showed.
     *
     * @param recognisedBy the recognised caller's rule; null when none was found
     * @param site         the call site to report; null when recognised
     */
    record Verdict(@Nullable String recognisedBy, @Nullable CallSite site) {
    }
}
