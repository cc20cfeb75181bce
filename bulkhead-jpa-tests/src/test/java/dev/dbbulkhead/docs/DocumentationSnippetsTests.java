package dev.dbbulkhead.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every Java snippet of the README and the docs compiles as shown, imports included, against the starter, JPA,
 * Spring MVC and the test module, as a reader who copies it into an application on Java 17 would compile it.
 *
 * <p>The types the docs say stand for the application's own ({@code Order}, {@code OrderRepository}, {@code Owner},
 * ...) are declared once in {@code documentation-stand-ins}; a snippet that declares one of them itself replaces the
 * stand-in. A block that is visibly an excerpt is not compiled: one that elides code with {@code ...}, or one whose
 * fence is preceded by the line {@code <!-- excerpt -->}.
 *
 * <p>The figures of the README's and the how-tos' configuration examples fit the pool under them: the B of the
 * workloads on the application's own pool add up to at most the pool size the example states, or Boot's default.
 */
class DocumentationSnippetsTests {

    private static final Path PROJECT = Path.of("..").toAbsolutePath().normalize();
    private static final String EXCERPT_MARKER = "<!-- excerpt -->";
    private static final Pattern FENCE_OPEN = Pattern.compile("^(\\s*)```java\\s*$");
    private static final Pattern FENCE_CLOSE = Pattern.compile("^\\s*```\\s*$");
    private static final Pattern ELISION = Pattern.compile("(^|\\s)(\\.\\.\\.|…)(\\s|$)");
    private static final Pattern YAML_FENCE_OPEN = Pattern.compile("^(\\s*)```ya?ml\\s*$");
    /** HikariCP's default {@code maximumPoolSize}, which Spring Boot keeps. */
    private static final int BOOT_DEFAULT_POOL_SIZE = 10;
    private static final Pattern POOL_SIZE = Pattern.compile("maximum-pool-size:\\s*(\\d+)");
    private static final Pattern MAX_CONCURRENT = Pattern.compile("(?<![\\w.-])max-concurrent:\\s*(\\d+)");
    private static final Pattern TYPE_DECLARATION =
            Pattern.compile("^(?:public\\s+|final\\s+|abstract\\s+)*(?:class|interface|record|enum)\\s+(\\w+)",
                    Pattern.MULTILINE);

    @TestFactory
    Stream<DynamicTest> everyJavaSnippetOfTheDocsCompilesAsShown(@TempDir Path classes) throws IOException {
        List<Snippet> snippets = compiledSnippets();
        List<StandIn> standIns = standIns();
        return snippets.stream().map(snippet -> DynamicTest.dynamicTest(
                snippet.source() + " at line " + snippet.line() + " compiles as shown",
                () -> assertThat(compile(snippet, standIns, classes.resolve(snippet.className())))
                        .as("%s at line %d:%n%s", snippet.source(), snippet.line(), snippet.code())
                        .isEmpty()));
    }

    @Test
    void theReadmeAndTheHowTosHaveSnippetsThatAreCompiled() throws IOException {
        List<Snippet> snippets = compiledSnippets();

        assertThat(snippets).extracting(Snippet::source)
                .contains("README.md", "docs/how-to/testing-your-refusals.md",
                        "docs/how-to/a-multi-tenant-service.md", "docs/how-to/spring-mvc-applications.md");
    }

    @Test
    void aSnippetThatDoesNotCompileIsReportedWithTheCompilersMessage(@TempDir Path classes) throws IOException {
        Snippet missingImport = new Snippet("example.md", 1,
                "class NoImport {\n    List<String> names;\n}\n");

        List<String> errors = compile(missingImport, standIns(), classes);

        assertThat(errors).hasSize(1);
        assertThat(errors.get(0)).contains("line 2").contains("List");
    }

    @Test
    void theWorkloadsOfEveryConfigurationExampleFitThePoolItStatesOrBootsDefault() throws IOException {
        List<Path> documents = new ArrayList<>();
        documents.add(PROJECT.resolve("README.md"));
        try (Stream<Path> howTos = Files.list(PROJECT.resolve("docs/how-to"))) {
            howTos.filter(path -> path.toString().endsWith(".md")).sorted().forEach(documents::add);
        }
        List<String> overflows = new ArrayList<>();
        for (Path document : documents) {
            for (Snippet yaml : blocksOf(document, YAML_FENCE_OPEN)) {
                String overflow = overflowOf(yaml);
                if (overflow != null) {
                    overflows.add(yaml.source() + " at line " + yaml.line() + ": " + overflow);
                }
            }
        }

        assertThat(overflows).isEmpty();
    }

    @Test
    void aWorkloadLargerThanBootsDefaultPoolIsReported() {
        Snippet yaml = new Snippet("example.md", 1,
                "db:\n  bulkhead:\n    workloads:\n      orders:\n        max-concurrent: 16\n");

        assertThat(overflowOf(yaml)).isEqualTo(
                "the workloads on the pool add up to B = 16, more than its 10 connections (Boot's default)");
    }

    /**
     * The sum of B of the example's workloads on the application's own pool — those that name no other DataSource
     * or transaction manager — when it exceeds the pool; null when it fits.
     */
    private static String overflowOf(Snippet yaml) {
        Matcher stated = POOL_SIZE.matcher(yaml.code());
        boolean poolStated = stated.find();
        int pool = poolStated ? Integer.parseInt(stated.group(1)) : BOOT_DEFAULT_POOL_SIZE;
        int sum = 0;
        for (String line : yaml.code().split("\n")) {
            String setting = line.replaceAll("#.*", "");
            if (setting.contains("data-source:") || setting.contains("transaction-manager:")) {
                continue;
            }
            Matcher concurrent = MAX_CONCURRENT.matcher(setting);
            if (concurrent.find()) {
                sum += Integer.parseInt(concurrent.group(1));
            }
        }
        if (sum <= pool) {
            return null;
        }
        return "the workloads on the pool add up to B = " + sum + ", more than its " + pool + " connections"
                + (poolStated ? "" : " (Boot's default)");
    }

    private static List<Snippet> compiledSnippets() throws IOException {
        List<Path> documents = new ArrayList<>();
        documents.add(PROJECT.resolve("README.md"));
        try (Stream<Path> docs = Files.walk(PROJECT.resolve("docs"))) {
            docs.filter(path -> path.toString().endsWith(".md")).sorted().forEach(documents::add);
        }
        List<Snippet> snippets = new ArrayList<>();
        for (Path document : documents) {
            snippets.addAll(snippetsOf(document));
        }
        return snippets;
    }

    private static List<Snippet> snippetsOf(Path document) throws IOException {
        List<Snippet> snippets = new ArrayList<>();
        for (Snippet block : blocksOf(document, FENCE_OPEN)) {
            if (!block.excerpt() && !ELISION.matcher(block.code()).find()) {
                snippets.add(block);
            }
        }
        return snippets;
    }

    /** The fenced blocks the pattern opens, without the fence's indentation, each marked if it is an excerpt. */
    private static List<Snippet> blocksOf(Path document, Pattern fence) throws IOException {
        String source = PROJECT.relativize(document).toString().replace('\\', '/');
        List<String> lines = Files.readAllLines(document, StandardCharsets.UTF_8);
        List<Snippet> blocks = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            Matcher open = fence.matcher(lines.get(i));
            if (!open.matches()) {
                continue;
            }
            int indent = open.group(1).length();
            int first = i + 1;
            StringBuilder code = new StringBuilder();
            int j = first;
            for (; j < lines.size() && !FENCE_CLOSE.matcher(lines.get(j)).matches(); j++) {
                String line = lines.get(j);
                code.append(line.length() >= indent && line.substring(0, indent).isBlank()
                        ? line.substring(indent) : line.strip()).append('\n');
            }
            blocks.add(new Snippet(source, first + 1, code.toString(), precededByMarker(lines, i)));
            i = j;
        }
        return blocks;
    }

    private static boolean precededByMarker(List<String> lines, int fence) {
        for (int k = fence - 1; k >= 0; k--) {
            if (!lines.get(k).isBlank()) {
                return lines.get(k).strip().equals(EXCERPT_MARKER);
            }
        }
        return false;
    }

    private static List<StandIn> standIns() throws IOException {
        URL folder = DocumentationSnippetsTests.class.getResource("/documentation-stand-ins");
        assertThat(folder).as("the stand-in types on the test class path").isNotNull();
        try (Stream<Path> files = Files.list(Path.of(toUri(folder)))) {
            List<StandIn> standIns = new ArrayList<>();
            for (Path file : files.filter(path -> path.toString().endsWith(".java")).sorted().toList()) {
                String name = file.getFileName().toString().replace(".java", "");
                standIns.add(new StandIn(name, Files.readString(file, StandardCharsets.UTF_8)));
            }
            return standIns;
        }
    }

    private static URI toUri(URL url) {
        try {
            return url.toURI();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(url.toString(), e);
        }
    }

    /** What javac said, errors and warnings, each with its line in the snippet; empty when it compiles clean. */
    private static List<String> compile(Snippet snippet, List<StandIn> standIns, Path classes) throws IOException {
        Files.createDirectories(classes);
        List<String> declared = new ArrayList<>();
        Matcher types = TYPE_DECLARATION.matcher(snippet.code());
        while (types.find()) {
            declared.add(types.group(1));
        }
        List<JavaFileObject> units = new ArrayList<>();
        units.add(new InMemorySource(snippet.className(), snippet.code()));
        for (StandIn standIn : standIns) {
            if (!declared.contains(standIn.name())) {
                units.add(new InMemorySource(standIn.name(), standIn.code()));
            }
        }
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        try (StandardJavaFileManager files = compiler.getStandardFileManager(diagnostics, Locale.ROOT,
                StandardCharsets.UTF_8)) {
            // Every warning an error, so that a snippet leaning on a deprecated API fails too; not `try`, which
            // flags the saturation a test holds without naming it in its block, as it is meant to be held.
            List<String> options = List.of("--release", "17", "-proc:none", "-implicit:none",
                    "-Xlint:all,-path,-processing,-classfile,-try", "-Werror",
                    "-classpath", snippetClassPath(), "-d", classes.toString());
            compiler.getTask(null, files, diagnostics, options, null, units).call();
        }
        return diagnostics.getDiagnostics().stream()
                .filter(diagnostic -> diagnostic.getKind() != Diagnostic.Kind.NOTE)
                .map(diagnostic -> (diagnostic.getSource() == null ? "" : diagnostic.getSource().getName())
                        + ", line " + diagnostic.getLineNumber() + ": " + diagnostic.getMessage(Locale.ROOT))
                .toList();
    }

    /**
     * The test class path and the jars the build copies aside for the snippets only (Spring Security's web module
     * and Boot's security module, which on the test class path would secure every test application here).
     */
    private static String snippetClassPath() throws IOException {
        StringBuilder classPath = new StringBuilder(System.getProperty("java.class.path"));
        Path aside = Path.of("target", "snippet-class-path");
        assertThat(aside).as("the jars the build copies for the snippets").isDirectory();
        try (Stream<Path> jars = Files.list(aside)) {
            jars.filter(jar -> jar.toString().endsWith(".jar")).sorted()
                    .forEach(jar -> classPath.append(java.io.File.pathSeparator).append(jar.toAbsolutePath()));
        }
        return classPath.toString();
    }

    private record Snippet(String source, int line, String code, boolean excerpt) {

        Snippet(String source, int line, String code) {
            this(source, line, code, false);
        }

        /** A class name of the snippet's own, so that several snippets never share a source file name. */
        String className() {
            return "Snippet_" + source.replaceAll("\\W", "_") + "_" + line;
        }
    }

    private record StandIn(String name, String code) {
    }

    /**
     * A source held in memory whose name fits any type, so that a snippet may declare several public types; it is
     * never a {@code package-info} or {@code module-info} file.
     */
    private static final class InMemorySource extends SimpleJavaFileObject {

        private final String code;

        InMemorySource(String name, String code) {
            super(URI.create("string:///" + name + Kind.SOURCE.extension), Kind.SOURCE);
            this.code = code;
        }

        @Override
        public boolean isNameCompatible(String simpleName, Kind kind) {
            return kind == Kind.SOURCE && !simpleName.endsWith("-info");
        }

        @Override
        public CharSequence getCharContent(boolean ignoreEncodingErrors) {
            return code;
        }
    }
}
