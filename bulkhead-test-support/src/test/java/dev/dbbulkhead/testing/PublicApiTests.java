package dev.dbbulkhead.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dbbulkhead.testing.apifixture.Widget;
import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PublicApiTests {

    private static final String FIXTURES = "dev.dbbulkhead.testing.apifixture";

    /** The fixtures' listing, with {@code $.} standing for their package to keep the lines readable. */
    private static final String FIXTURE_LISTING = fixtures("""
            public final class $.Box<N extends java.lang.Number & java.lang.Comparable<N>> extends $.Outer<N> \
            implements java.lang.Comparable<$.Box<N>>
                protected java.util.List<N> elements()
                public <K, V extends java.util.List<? super K>> V[] group(java.util.List<K[]>, java.lang.Class<?>)
                public Box()
                public int compareTo($.Box<N>)
            @Deprecated(forRemoval = true) public class $.Legacy
                public Legacy()
            public @interface $.Legacy.Marker
                public java.lang.String value()
            public sealed interface $.Outcome permits $.Outcome.Done, $.Outcome.Failed, $.Outcome.Open
            public record $.Outcome.Done implements $.Outcome
                public Done(java.lang.String)
                public final boolean equals(java.lang.Object)
                public final int hashCode()
                public final java.lang.String toString()
                public java.lang.String value()
            public record $.Outcome.Failed implements $.Outcome
                public Failed(java.lang.Exception)
                public final boolean equals(java.lang.Object)
                public final int hashCode()
                public final java.lang.String toString()
                public java.lang.Exception cause()
            public static non-sealed class $.Outcome.Open implements $.Outcome
                public Open()
            public abstract class $.Outer<E>
                protected abstract java.util.List<E> elements()
                public Outer()
            public static final class $.Outer.Builder
                public Builder()
                public $.Outer.Builder add(java.lang.Object)
            public class $.Outer.Cursor
                public Cursor(int)
                public E current()
            protected static class $.Outer.Extension
                protected Extension()
            public interface $.Outer.Listener
                public void changed()
            public record $.Point implements java.io.Serializable
                public Point(int, int)
                public final boolean equals(java.lang.Object)
                public final int hashCode()
                public final java.lang.String toString()
                public int x()
                public int y()
                public static $.Point origin()
            public interface $.Shape extends java.lang.Comparable<$.Shape>
                public default boolean isLargerThan($.Shape)
                public default int compareTo($.Shape)
                public double area()
                public static $.Shape unit()
                public static final double UNIT
            public enum $.Signal implements java.lang.Runnable
                enum constant AMBER
                enum constant GREEN
                enum constant RED
                public boolean stops()
                public void run()
            public class $.Widget
                @Deprecated public final void reset()
                protected Widget(java.lang.String)
                protected long count
                protected void touch()
                public Widget()
                public java.lang.String label
                public java.lang.String label()
                public java.util.Map<java.lang.String, java.util.List<java.lang.Integer>> counts(java.lang.String...)
                public static <T extends java.lang.Comparable<? super T>> T max(java.util.Collection<? extends T>)
                public static final int LIMIT
                public void load(java.nio.file.Path) throws java.io.IOException, java.lang.InterruptedException
            """);

    @TempDir
    Path temp;

    // ------------------------------------------------------------------------------------------- the listing

    @Test
    void theListingOfTheFixturesIsExactlyOneLinePerReachableTypeAndMemberSortedByName() {
        assertThat(PublicApi.listing(testClasses(), FIXTURES)).isEqualTo(FIXTURE_LISTING);
    }

    @Test
    void aPublicClassItsPublicAndProtectedMembersAndNothingPackagePrivateOrPrivateAreListed() {
        assertThat(typeEntry("Widget")).isEqualTo(fixtures("""
                public class $.Widget
                    @Deprecated public final void reset()
                    protected Widget(java.lang.String)
                    protected long count
                    protected void touch()
                    public Widget()
                    public java.lang.String label
                    public java.lang.String label()
                    public java.util.Map<java.lang.String, java.util.List<java.lang.Integer>> counts(java.lang.String...)
                    public static <T extends java.lang.Comparable<? super T>> T max(java.util.Collection<? extends T>)
                    public static final int LIMIT
                    public void load(java.nio.file.Path) throws java.io.IOException, java.lang.InterruptedException
                """));
    }

    @Test
    void anInterfaceListsItsAbstractDefaultAndStaticMethodsAndItsConstant() {
        assertThat(typeEntry("Shape")).isEqualTo(fixtures("""
                public interface $.Shape extends java.lang.Comparable<$.Shape>
                    public default boolean isLargerThan($.Shape)
                    public default int compareTo($.Shape)
                    public double area()
                    public static $.Shape unit()
                    public static final double UNIT
                """));
    }

    @Test
    void anEnumListsItsConstantsAndMethodsButNotValuesValueOfOrTheClassOfAConstantBody() {
        assertThat(typeEntry("Signal")).isEqualTo(fixtures("""
                public enum $.Signal implements java.lang.Runnable
                    enum constant AMBER
                    enum constant GREEN
                    enum constant RED
                    public boolean stops()
                    public void run()
                """));
        assertThat(PublicApi.listing(testClasses(), FIXTURES)).doesNotContain("Signal$1", "values()", "valueOf(");
    }

    @Test
    void aRecordListsItsCanonicalConstructorAndOneAccessorPerComponent() {
        assertThat(typeEntry("Point")).isEqualTo(fixtures("""
                public record $.Point implements java.io.Serializable
                    public Point(int, int)
                    public final boolean equals(java.lang.Object)
                    public final int hashCode()
                    public final java.lang.String toString()
                    public int x()
                    public int y()
                    public static $.Point origin()
                """));
    }

    @Test
    void aPublicNestedClassOfAPackagePrivateClassIsNotListedNorAPrivateNestedClass() {
        String listing = PublicApi.listing(testClasses(), FIXTURES);

        assertThat(listing).doesNotContain("Hidden", "shown()", "alsoHidden()", "Secret", "notShown()");
    }

    @Test
    void publicAndProtectedNestedTypesAreTheirOwnEntriesNamedWithADot() {
        assertThat(typeEntry("Outer.Builder") + typeEntry("Outer.Cursor") + typeEntry("Outer.Extension"))
                .isEqualTo(fixtures("""
                        public static final class $.Outer.Builder
                            public Builder()
                            public $.Outer.Builder add(java.lang.Object)
                        public class $.Outer.Cursor
                            public Cursor(int)
                            public E current()
                        protected static class $.Outer.Extension
                            protected Extension()
                        """));
    }

    @Test
    void genericSupertypesBoundsAndArraysAreRenderedAsDeclaredAndBridgesAreLeftOut() {
        assertThat(typeEntry("Box")).isEqualTo(fixtures("""
                public final class $.Box<N extends java.lang.Number & java.lang.Comparable<N>> extends $.Outer<N> \
                implements java.lang.Comparable<$.Box<N>>
                    protected java.util.List<N> elements()
                    public <K, V extends java.util.List<? super K>> V[] group(java.util.List<K[]>, java.lang.Class<?>)
                    public Box()
                    public int compareTo($.Box<N>)
                """));
    }

    @Test
    void sealedNonSealedAndDeprecatedTypesAreMarkedOnTheirHeader() {
        assertThat(PublicApi.listing(testClasses(), FIXTURES)).contains(fixtures("""
                @Deprecated(forRemoval = true) public class $.Legacy
                """), fixtures("""
                public sealed interface $.Outcome permits $.Outcome.Done, $.Outcome.Failed, $.Outcome.Open
                """), fixtures("""
                public static non-sealed class $.Outcome.Open implements $.Outcome
                """));
    }

    @Test
    void anotherModulesClassesDirectoryIsListedTheSameAndWholeWithoutAPackagePrefix() throws IOException {
        Path classes = copyOfTheFixtures(temp.resolve("project/some-module/target/classes"));

        assertThat(PublicApi.listing(classes, FIXTURES)).isEqualTo(FIXTURE_LISTING);
        assertThat(PublicApi.listing(classes)).isEqualTo(FIXTURE_LISTING);
    }

    @Test
    void aClassesDirectoryThatDoesNotExistIsAnErrorNotAnEmptyApi() {
        assertThatThrownBy(() -> PublicApi.listing(temp.resolve("target/classes")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Not a directory of compiled classes");
    }

    // ------------------------------------------------------------------------------------------- the check

    @Test
    void theCheckPassesWhenTheCommittedFileHoldsTheListingWhateverItsLineEndings() throws IOException {
        Path committed = Files.writeString(temp.resolve("public-api.txt"), FIXTURE_LISTING);
        Path checkedOutOnWindows = Files.writeString(temp.resolve("crlf.txt"),
                FIXTURE_LISTING.replace("\n", "\r\n"));

        assertThatCode(() -> {
            PublicApi.assertMatchesCommittedListing(testClasses(), FIXTURES, committed, false);
            PublicApi.assertMatchesCommittedListing(testClasses(), FIXTURES, checkedOutOnWindows, false);
        }).doesNotThrowAnyException();
        assertThat(committed).content().isEqualTo(FIXTURE_LISTING);
    }

    @Test
    void theCheckFailsNamingTheLinesOnlyInTheCodeAndOnlyInTheFileAndHowToAcceptTheChange() throws IOException {
        String stale = FIXTURE_LISTING
                .replace("    protected void touch()\n", "    public void gone()\n")
                .replace("public enum " + FIXTURES + ".Signal", "public final enum " + FIXTURES + ".Signal")
                + "public final class " + FIXTURES + ".Removed\n"
                + "    public Removed()\n";
        Path committed = Files.writeString(temp.resolve("public-api.txt"), stale);

        assertThatThrownBy(() -> PublicApi.assertMatchesCommittedListing(testClasses(), FIXTURES, committed, false))
                .isInstanceOf(AssertionError.class)
                .hasMessage(fixtures("""
                        The public API of bulkhead-test-support differs from the committed listing %s.
                        Lines only in the code are marked +, lines only in the file -:
                        - public final enum $.Signal implements java.lang.Runnable
                        + public enum $.Signal implements java.lang.Runnable
                          public class $.Widget
                        -     public void gone()
                        +     protected void touch()
                        - public final class $.Removed
                        -     public Removed()
                        If the change to the public API is intended, run: \
                        ./mvnw -pl bulkhead-test-support -am verify -Dapi.update=true and commit %s""")
                        .formatted(committed, committed));
        assertThat(committed).content().isEqualTo(stale);
    }

    @Test
    void theCheckFailsListingEveryLineAsAddedWhenThereIsNoCommittedFile() {
        Path committed = temp.resolve("api/public-api.txt");

        assertThatThrownBy(() -> PublicApi.assertMatchesCommittedListing(testClasses(), FIXTURES, committed, false))
                .isInstanceOf(AssertionError.class)
                .hasMessageStartingWith("The public API of bulkhead-test-support has no committed listing: "
                        + committed + " is missing.\n")
                .hasMessageContaining(Arrays.stream(FIXTURE_LISTING.split("\n"))
                        .map(line -> "+ " + line)
                        .collect(Collectors.joining("\n", "\n", "\n")))
                .hasMessageEndingWith("-Dapi.update=true and commit " + committed);
        assertThat(committed).doesNotExist();
    }

    @Test
    void theCommandNamesTheModuleFolderAndTheFileFromTheProjectRoot() throws IOException {
        Path classes = copyOfTheFixtures(temp.resolve("project/some-module/target/classes"));
        Path committed = Files.createDirectories(temp.resolve("project/some-module/api")).resolve("public-api.txt");

        assertThatThrownBy(() -> PublicApi.assertMatchesCommittedListing(classes, FIXTURES, committed, false))
                .hasMessageStartingWith("The public API of some-module has no committed listing")
                .hasMessageEndingWith("If the change to the public API is intended, run: ./mvnw -pl some-module"
                        + " -am verify -Dapi.update=true and commit "
                        + String.join(File.separator, "some-module", "api", "public-api.txt"));
    }

    @Test
    void withTheUpdateFlagTheCheckRewritesADifferentFileAndPasses() throws IOException {
        Path committed = Files.writeString(temp.resolve("public-api.txt"), "public class Gone\n");

        PublicApi.assertMatchesCommittedListing(testClasses(), FIXTURES, committed, true);

        assertThat(committed).content().isEqualTo(FIXTURE_LISTING);
        assertThatCode(() -> PublicApi.assertMatchesCommittedListing(testClasses(), FIXTURES, committed, false))
                .doesNotThrowAnyException();
    }

    @Test
    void withTheUpdateFlagTheCheckWritesAMissingFileAndItsFolders() {
        Path committed = temp.resolve("api/v1/public-api.txt");

        PublicApi.assertMatchesCommittedListing(testClasses(), FIXTURES, committed, true);

        assertThat(committed).content().isEqualTo(FIXTURE_LISTING);
    }

    // ------------------------------------------------------------------------------------------- helpers

    private static String fixtures(String listing) {
        return listing.replace("$.", FIXTURES + ".");
    }

    /** The test classes, found from a fixture so that the working directory does not matter. */
    private static Path testClasses() {
        try {
            return Path.of(Widget.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The header and member lines of the fixture type {@code simpleName} ({@code Outer.Inner} when nested). */
    private static String typeEntry(String simpleName) {
        String listing = PublicApi.listing(testClasses(), FIXTURES);
        StringBuilder entry = new StringBuilder();
        boolean inType = false;
        for (String line : listing.split("\n")) {
            if (!line.startsWith(" ")) {
                String afterPackage = line.substring(line.indexOf(FIXTURES + ".") + FIXTURES.length() + 1);
                inType = afterPackage.equals(simpleName) || afterPackage.startsWith(simpleName + " ")
                        || afterPackage.startsWith(simpleName + "<");
            }
            if (inType) {
                entry.append(line).append('\n');
            }
        }
        return entry.toString();
    }

    /** The fixture classes, in a folder of their own laid out as a module's {@code target/classes}. */
    private static Path copyOfTheFixtures(Path classes) throws IOException {
        Path from = testClasses().resolve(FIXTURES.replace('.', '/'));
        Path to = Files.createDirectories(classes.resolve(FIXTURES.replace('.', '/')));
        try (Stream<Path> files = Files.list(from)) {
            for (Path file : files.toList()) {
                Files.copy(file, to.resolve(file.getFileName()));
            }
        }
        return classes;
    }
}
