package dev.dbbulkhead.jdbc.ungated;

import dev.dbbulkhead.jdbc.DataSourceDecorator;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * How the stack of a borrow outside every gate is read: which packages are the application's, whose nearest frame
 * is the call site; which frames are libraries, passed over when no frame of the application is on the stack; and
 * which callers are recognised infrastructure, which runs outside the gates by design and is not reported. A name
 * matches a rule when it is the named class (or one nested in it), or lies in the named package or below it:
 * {@code org.flywaydb} matches {@code org.flywaydb.core.Flyway}, not {@code org.flywaydbx.A}. The application's
 * packages come before the libraries, so that an application in {@code org.springframework.samples.petclinic} is
 * named although {@code org.springframework} is a library. Immutable.
 */
public final class CallerRules {

    /** How deep a borrow's stack is read; a framework's stack down to the application is far shallower. */
    public static final int MAX_FRAMES = 256;

    /** The step between the depths the {@link #WALKERS} expect. */
    private static final int DEPTH_STEP = 8;

    /**
     * Walkers of a borrow's stack that expect 8, 16, 24, … {@link #MAX_FRAMES} frames. The JDK makes every frame of a
     * batch up front: without an estimate it fetches 8 frames, then 16, then 32, each batch a call into the VM with its
     * frames made anew; with one too large it makes frames nobody reads. A borrow's stack runs to some twenty frames
     * under a bare transaction and past a hundred in a web request, and is about as deep from one borrow to the next.
     */
    private static final StackWalker[] WALKERS = new StackWalker[MAX_FRAMES / DEPTH_STEP];

    static {
        for (int i = 0; i < WALKERS.length; i++) {
            WALKERS[i] = StackWalker.getInstance(Set.of(), DEPTH_STEP * (i + 1));
        }
    }

    /** How deep the last stack walked was, the estimate for the next: unordered, as a stale one only sizes a batch. */
    private static int lastDepth = 32;

    /** The current thread's stack from its caller down, nearest frame first, at most {@link #MAX_FRAMES} of it. */
    static List<StackWalker.StackFrame> stack() {
        // The walker that expects the last depth and a few frames more (the walk's own, which the JDK passes over).
        int walker = Math.min(WALKERS.length - 1, (lastDepth + 3) / DEPTH_STEP);
        // Into a list of the size expected: a stream's own collecting grows buffers and copies them.
        List<StackWalker.StackFrame> frames = new ArrayList<>(DEPTH_STEP * (walker + 1));
        WALKERS[walker].walk(stack -> {
            stack.limit(MAX_FRAMES).forEach(frames::add);
            return frames;
        });
        lastDepth = frames.size();
        return frames;
    }

    /**
     * The JDK (reflection included) and the test runners that call a test's code: never a call site, not even inside
     * the application's packages, nor as the last resort.
     */
    static final List<String> RUNTIME = List.of("java", "javax", "jdk", "sun", "com.sun", "org.junit",
            "org.apache.maven.surefire", "org.gradle", "worker.org.gradle", "com.intellij.rt",
            "org.eclipse.jdt.internal.junit", "org.testng");

    /**
     * Pools, drivers, servlet containers, web and data-access frameworks, byte-code libraries, assertion libraries
     * and this library: never taken for the application's frame unless they lie in the application's packages.
     */
    private static final List<String> LIBRARIES = List.of("jakarta", "com.zaxxer.hikari",
            "org.apache.commons.dbcp2", "org.apache.tomcat", "org.apache.catalina", "org.apache.coyote",
            "org.eclipse.jetty", "io.undertow", "io.netty", "reactor",
            "org.postgresql", "com.mysql", "org.mariadb", "oracle.jdbc", "com.microsoft.sqlserver", "org.h2",
            "org.hsqldb", "org.apache.derby", "net.ttddyy", "com.p6spy",
            "org.springframework", "org.hibernate", "org.jooq", "org.apache.ibatis", "org.mybatis", "org.aspectj",
            "io.micrometer", "net.bytebuddy", "kotlin", "kotlinx", "org.assertj", "org.thymeleaf", "org.attoparser",
            "com.fasterxml.jackson", "tools.jackson", "org.slf4j", "ch.qos.logback", "org.apache.logging",
            "org.mockito", "dev.dbbulkhead");

    /**
     * Infrastructure that runs outside the gates by design: schema initialisation (Spring's script runner and
     * Spring Boot's SQL initialisation), migrations (Flyway, Liquibase), Spring Boot's DataSource health indicator,
     * Hibernate's bootstrap (reading the database's metadata) and schema tooling, Spring Boot's look at the database
     * for Hibernate's default {@code ddl-auto}, and the transaction the Spring TestContext Framework begins around a
     * {@code @Transactional} test.
     */
    private static final List<String> INFRASTRUCTURE = List.of("org.springframework.jdbc.datasource.init",
            "org.springframework.boot.sql.init", "org.springframework.boot.jdbc.init",
            "org.springframework.boot.jdbc.health", "org.flywaydb", "liquibase",
            "org.springframework.boot.hibernate.autoconfigure.HibernateDefaultDdlAutoProvider",
            "org.hibernate.engine.jdbc.env.internal", "org.hibernate.tool.schema",
            "org.springframework.test.context.transaction");

    /** What a generated subclass's name adds to its superclass's: CGLIB's, Hibernate's and ByteBuddy's. */
    private static final List<String> GENERATED_SUBCLASS_MARKERS = List.of("$$", "$HibernateProxy", "$ByteBuddy$");

    /** A Java package or class name, nested classes written with {@code $}. */
    private static final Pattern NAME = Pattern.compile(
            "\\p{javaJavaIdentifierStart}\\p{javaJavaIdentifierPart}*(\\.\\p{javaJavaIdentifierStart}\\p{javaJavaIdentifierPart}*)*");

    /**
     * The detector's classes on a borrow's stack, above the caller: never a call site. The last is the Spring side's
     * watch in front of a pool that keeps the pool's class, which hands borrows to a {@link WatchedDataSource}: named
     * here, as this module sees nothing of Spring.
     */
    private static final List<String> DETECTOR = List.of(WatchedDataSource.class.getName(),
            DataSourceDecorator.class.getName(), PoolAdmission.class.getName(),
            UngatedConnectionDetector.class.getName(), CallerRules.class.getName(),
            "dev.dbbulkhead.jdbc.ungated.support.WatchedPoolProxy");

    /** The call site of a stack with no frame outside the detector within reach. */
    private static final CallSite UNKNOWN = new CallSite("unknown", "unknown", null, -1, false);

    private static final CallerRules DEFAULTS = new CallerRules(INFRASTRUCTURE, List.of());

    private final List<String> recognised;
    private final List<String> applicationPackages;
    /** What each class is to {@link #judge}: a function of the name and of these rules, read once per class. */
    private final ClassNameMemo<Role> roles = new ClassNameMemo<>(this::roleOf);

    private CallerRules(List<String> recognised, List<String> applicationPackages) {
        this.recognised = List.copyOf(recognised);
        this.applicationPackages = List.copyOf(applicationPackages);
    }

    /**
     * What a frame of a class is to {@link #judge}, in the order it asks: the detector's own, recognised infrastructure
     * (with its rule), passed over (generated, the JDK's, a test runner's), the application's, a library's, or code of
     * no known library.
     */
    private record Role(Kind kind, @Nullable String recognisedBy) {

        enum Kind { DETECTOR, RECOGNISED, PASSED_OVER, APPLICATION, LIBRARY, UNKNOWN_CODE }
    }

    private Role roleOf(String className) {
        if (firstMatch(DETECTOR, className) != null) {
            return new Role(Role.Kind.DETECTOR, null);
        }
        String rule = firstMatch(recognised, className);
        if (rule != null) {
            return new Role(Role.Kind.RECOGNISED, rule);
        }
        if (isGenerated(className) || firstMatch(RUNTIME, className) != null) {
            return new Role(Role.Kind.PASSED_OVER, null);
        }
        if (firstMatch(applicationPackages, className) != null) {
            return new Role(Role.Kind.APPLICATION, null);
        }
        return new Role(firstMatch(LIBRARIES, className) == null ? Role.Kind.UNKNOWN_CODE : Role.Kind.LIBRARY, null);
    }

    /** The libraries and the recognised infrastructure above; no application package. */
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
            requirePackageOrClassName(caller);
            if (!all.contains(caller)) {
                all.add(caller);
            }
        }
        return new CallerRules(all, applicationPackages);
    }

    /**
     * Refuses what is no package or class name, naming the value and what is expected.
     *
     * @throws IllegalArgumentException when {@code name} is null, blank or holds anything but a dotted Java name
     */
    static void requirePackageOrClassName(@Nullable String name) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("'" + name + "' is no package or class name: each entry names"
                    + " a package (com.example.batch) or a class (com.example.CacheWarmer), without wildcards");
        }
    }

    /**
     * These rules, with {@code packages} read as the application's own: the nearest frame of a class in one of them
     * (or below it) is a borrow's call site, even when a library's package holds it.
     *
     * @param packages package names, such as {@code com.example.shop} or {@code org.springframework.samples.petclinic}
     * @throws IllegalArgumentException naming the first entry that is no package name, or one that holds a library
     *                                  or the JDK ({@code org.springframework}, {@code org}, {@code java}), whose frames
     *                                  would all be taken for the application's
     */
    public CallerRules withApplicationPackages(Collection<String> packages) {
        List<String> all = new ArrayList<>(applicationPackages);
        for (String name : packages) {
            if (name == null || !NAME.matcher(name).matches()) {
                throw new IllegalArgumentException("'" + name + "' is no package name: each entry names a package of"
                        + " the application (com.example.shop), without wildcards");
            }
            String runtime = firstMatch(RUNTIME, name);
            if (runtime != null) {
                throw new IllegalArgumentException("'" + name + "' lies in " + runtime + ", the JDK's or a test"
                        + " runner's, whose frames are never the application's: name the application's own package");
            }
            String library = heldLibrary(name);
            if (library != null) {
                throw new IllegalArgumentException("'" + name + "' holds the library " + library + ", whose frames"
                        + " would all be taken for the application's: name the application's own package, below it"
                        + " (such as " + library + ".samples.petclinic)");
            }
            if (!all.contains(name)) {
                all.add(name);
            }
        }
        return new CallerRules(recognised, all);
    }

    /** The first library or runtime package that {@code name} is, or holds; null when none. */
    private static @Nullable String heldLibrary(String name) {
        for (List<String> known : List.of(RUNTIME, LIBRARIES)) {
            for (String library : known) {
                if (library.equals(name) || library.startsWith(name + ".")) {
                    return library;
                }
            }
        }
        return null;
    }

    /** The recognised callers, the built-in ones first. */
    public List<String> recognised() {
        return recognised;
    }

    /** The application's packages, in the order given; empty when none was given. */
    public List<String> applicationPackages() {
        return applicationPackages;
    }

    /**
     * Reads a borrow's stack, nearest frame first.
     *
     * @return the recognised caller found anywhere within {@link #MAX_FRAMES}; else the nearest frame of the
     *         application's packages; else, as a guess, the nearest frame of no known library, or failing that the
     *         nearest frame outside the JDK and the test runners
     */
    Verdict judge(List<StackWalker.StackFrame> frames) {
        StackWalker.StackFrame nearest = null;
        StackWalker.StackFrame unknownCode = null;
        StackWalker.StackFrame application = null;
        for (int i = 0, depth = Math.min(frames.size(), MAX_FRAMES); i < depth; i++) {
            StackWalker.StackFrame frame = frames.get(i);
            Role role = roles.of(frame.getClassName());
            if (role.kind() == Role.Kind.DETECTOR) {
                continue;
            }
            if (role.kind() == Role.Kind.RECOGNISED) {
                return new Verdict(role.recognisedBy(), (CallSite) null);
            }
            // Read on past the application's frame: a recognised caller may have called it.
            if (application != null || role.kind() == Role.Kind.PASSED_OVER) {
                continue;
            }
            if (role.kind() == Role.Kind.APPLICATION) {
                application = frame;
                continue;
            }
            if (unknownCode == null && role.kind() == Role.Kind.UNKNOWN_CODE) {
                unknownCode = frame;
            }
            if (nearest == null) {
                nearest = frame;
            }
        }
        if (application != null) {
            return new Verdict(application, true);
        }
        StackWalker.StackFrame guess = unknownCode != null ? unknownCode : nearest;
        return guess == null ? new Verdict(null, UNKNOWN) : new Verdict(guess, false);
    }

    /**
     * Whether {@code className} is of a known library, this one included, or of the JDK or a test runner, and not
     * of the application's packages: a frame that must never be allowed, as every borrow through it would be.
     */
    boolean isLibrary(String className) {
        return firstMatch(applicationPackages, className) == null && (firstMatch(LIBRARIES, className) != null
                || firstMatch(RUNTIME, className) != null || isGenerated(className) || className.equals("unknown"));
    }

    /** Proxies and generated subclasses: CGLIB's and ByteBuddy's, Hibernate's, and JDK proxies in any package. */
    static boolean isGenerated(String className) {
        int simpleName = className.lastIndexOf('.') + 1;
        if (className.startsWith("$Proxy", simpleName)) {
            return true;
        }
        for (String marker : GENERATED_SUBCLASS_MARKERS) {
            if (className.contains(marker)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The class a generated one stands for — a CGLIB or ByteBuddy subclass's or a Hibernate proxy's superclass — or
     * {@code null} for a JDK proxy, whose name says nothing of the class it stands for.
     */
    static @Nullable String userClassOf(String generated) {
        int end = generated.length();
        for (String marker : GENERATED_SUBCLASS_MARKERS) {
            int at = generated.indexOf(marker);
            if (at > 0 && at < end) {
                end = at;
            }
        }
        return end == generated.length() ? null : generated.substring(0, end);
    }

    /** The first of {@code names} that is {@code className}'s package (or an enclosing one) or class; null when none. */
    static @Nullable String firstMatch(List<String> names, String className) {
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
        return "CallerRules[recognised=" + recognised + ", applicationPackages=" + applicationPackages + "]";
    }

    /**
     * What a borrow's stack showed: the recognised caller's rule, or the call site to report. A site read from a frame
     * is resolved to its file and line only when asked ({@link #site()}): that asks the JDK for the frame's whole
     * stack-trace element, which a borrow from a site already counted does without, going by {@link #key()}.
     */
    static final class Verdict {

        private final @Nullable String recognisedBy;
        private final StackWalker.@Nullable StackFrame frame;
        private final boolean application;
        private @Nullable CallSite site;

        /**
         * @param recognisedBy the recognised caller's rule; null when none was found
         * @param site         the call site to report; null when recognised
         */
        Verdict(@Nullable String recognisedBy, @Nullable CallSite site) {
            this.recognisedBy = recognisedBy;
            this.frame = null;
            this.application = site != null && site.application();
            this.site = site;
        }

        private Verdict(StackWalker.StackFrame frame, boolean application) {
            this.recognisedBy = null;
            this.frame = frame;
            this.application = application;
        }

        /** The recognised caller's rule; null when none was found. */
        @Nullable String recognisedBy() {
            return recognisedBy;
        }

        /** The call site to report; null when recognised. */
        @Nullable CallSite site() {
            if (site == null && frame != null) {
                site = CallSite.of(frame, application);
            }
            return site;
        }

        /**
         * What tells the call site apart from every other without resolving it: the frame's class, method and byte-code
         * index, each as the JDK already holds it (the class's name and the method's are kept strings, their hashes
         * computed once); several keys may stand for one site, one per call on its line. The site itself when it was
         * given resolved; null when recognised.
         */
        @Nullable Object key() {
            return frame == null ? site
                    : new FrameKey(frame.getClassName(), frame.getMethodName(), frame.getByteCodeIndex(), application);
        }

        private record FrameKey(String className, String methodName, int byteCodeIndex, boolean application) {
        }
    }
}
