package dev.dbbulkhead.consumer.readme;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.Diagnostic;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;

/**
 * One {@code ```java} block of a Markdown page as a source file for javac: the block as written, after a
 * {@code package} line, so that javac's line numbers turn back into the page's.
 */
final class JavaSample extends SimpleJavaFileObject {

    private static final String FENCE = "```";
    private static final Pattern TYPE = Pattern.compile("\\b(?:class|interface|record|enum)\\s+(\\w+)");

    private final String page;
    /** The page's line of the block's first line of code. */
    private final int firstLine;
    private final String code;
    private final String source;

    private JavaSample(String page, int firstLine, String code, String packageName) {
        super(URI.create("string:///" + packageName.replace('.', '/') + "/" + typeName(code) + Kind.SOURCE.extension),
                Kind.SOURCE);
        this.page = page;
        this.firstLine = firstLine;
        this.code = code;
        this.source = "package " + packageName + ";\n" + code;
    }

    /** Every {@code ```java} block of {@code markdown}, in order, as a source file of {@code packageName}. */
    static List<JavaSample> blocksOf(Path markdown, String packageName) throws IOException {
        List<String> lines = Files.readAllLines(markdown, StandardCharsets.UTF_8);
        List<JavaSample> samples = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            if (!lines.get(i).strip().equals(FENCE + "java")) {
                continue;
            }
            int first = i + 1;
            int end = first;
            while (end < lines.size() && !lines.get(end).strip().equals(FENCE)) {
                end++;
            }
            if (end == lines.size()) {
                throw new IllegalArgumentException(markdown + ": the java block of line " + (i + 1) + " never ends");
            }
            samples.add(new JavaSample(markdown.getFileName().toString(), first + 1,
                    String.join("\n", lines.subList(first, end)) + "\n", packageName));
            i = end;
        }
        return samples;
    }

    /** The block as written. */
    String code() {
        return code;
    }

    /** What javac said of this sample, at the page's line. */
    String describe(Diagnostic<? extends JavaFileObject> diagnostic) {
        // The package line comes first: javac's line 2 is the block's first.
        long line = diagnostic.getLineNumber() == Diagnostic.NOPOS ? firstLine
                : firstLine + diagnostic.getLineNumber() - 2;
        return page + ":" + line + ": " + diagnostic.getKind().toString().toLowerCase(Locale.ROOT) + ": "
                + diagnostic.getMessage(Locale.ROOT);
    }

    @Override
    public CharSequence getCharContent(boolean ignoreEncodingErrors) {
        return source;
    }

    /**
     * The first type the block declares, which names its file (a public type must match it); {@code NoType} for a
     * block that declares none, of which javac then says what is wrong.
     */
    private static String typeName(String code) {
        Matcher type = TYPE.matcher(code);
        return type.find() ? type.group(1) : "NoType";
    }

    @Override
    public String toString() {
        return page + ":" + firstLine;
    }
}
