package dev.dbbulkhead.consumer.readme;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every Java sample of the README, compiled as an application on Java 17 compiles it against the starter: each
 * {@code ```java} block is one source file, put in this package (the one line added to it), and all of them are
 * compiled together with the application's own types the samples take as given ({@link Order},
 * {@link OrderRequest}, {@link OrderRepository}, in this package). So a sample shows its imports and whole types,
 * and two samples do not declare the same type. A sample that stops compiling fails here, named by its README line.
 */
class ReadmeSamplesTests {

    /** Maven runs the tests in the module's directory, one below the repository's. */
    private static final Path README = Path.of("..", "README.md");

    @Test
    void everyJavaSampleOfTheReadmeCompilesOnJava17AgainstThePublishedModules(@TempDir Path classes)
            throws IOException {
        List<JavaSample> samples = JavaSample.blocksOf(README, ReadmeSamplesTests.class.getPackageName());
        assertThat(samples).as("java blocks of the README").hasSizeGreaterThanOrEqualTo(3);
        assertThat(samples).as("the annotation's sample imports it")
                .anyMatch(sample -> sample.code().contains("import dev.dbbulkhead.annotation.DbBulkhead;"));

        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertThat(javac).as("a compiler: the tests run on a JDK").isNotNull();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        boolean compiled;
        try (StandardJavaFileManager files = javac.getStandardFileManager(diagnostics, Locale.ROOT,
                StandardCharsets.UTF_8)) {
            compiled = javac.getTask(null, files, diagnostics, options(classes), null, samples).call();
        }

        assertThat(problems(diagnostics)).as("what javac said of the README's samples").isEmpty();
        assertThat(compiled).isTrue();
    }

    /**
     * Java 17, against the class path of this test — the published modules and what they bring, and the types the
     * samples take as given — with every warning an error: a sample that leans on a deprecated API fails too.
     */
    private static List<String> options(Path classes) {
        return List.of("--release", "17", "-proc:none", "-Xlint:all,-path,-processing,-classfile", "-Werror",
                "-classpath", System.getProperty("java.class.path"), "-d", classes.toString());
    }

    private static List<String> problems(DiagnosticCollector<JavaFileObject> diagnostics) {
        return diagnostics.getDiagnostics().stream()
                .filter(diagnostic -> diagnostic.getKind() != Diagnostic.Kind.NOTE)
                .map(diagnostic -> diagnostic.getSource() instanceof JavaSample sample
                        ? sample.describe(diagnostic) : diagnostic.toString())
                .collect(Collectors.toList());
    }
}
