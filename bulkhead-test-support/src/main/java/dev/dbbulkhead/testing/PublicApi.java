package dev.dbbulkhead.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * The public API of a published module as text, computed from its compiled classes, so that a test in the module
 * can compare it with a committed file: any change to what callers outside the module can see (a type, a member,
 * a signature, a supertype, a modifier that decides who may extend or override) then fails that test and, once
 * accepted, shows as a diff of the committed file in review, where an accidental change would otherwise pass
 * unnoticed until a user's build breaks.
 *
 * <p>The listing holds every type reachable from outside its package: public, or protected and nested, with every
 * enclosing type reachable too. Each type has one header line, then one indented line per public or protected
 * member it declares (inherited members are listed under the type that declares them):
 *
 * <pre>
 * public final class dev.dbbulkhead.gate.AdmissionGate implements java.lang.AutoCloseable
 *     public void close()
 *     public static dev.dbbulkhead.gate.AdmissionGate.Builder builder()
 * public static final class dev.dbbulkhead.gate.AdmissionGate.Builder
 * </pre>
 *
 * <p>Types are sorted by name and members by their line, so the text depends only on the classes, never on the
 * order reflection or the file system returns them in. Nested types are named with dots ({@code Outer.Inner}).
 * Generic types are rendered as declared ({@code java.util.List<? extends T>}), varargs with {@code ...}, and
 * checked exceptions with {@code throws}. Implicit parts that no source could change are left out: the
 * {@code abstract} of interface methods, the {@code static} of nested interfaces, enums and records, the
 * {@code final} or {@code sealed} of enums and records, the supertype of enums and records, and the
 * {@code values()} and {@code valueOf(String)} of enums. Modifiers that do not concern callers
 * (locking, native code, transient and volatile fields), annotations, parameter names and
 * constant values are not listed; only {@code @Deprecated}, on types and members, is.
 *
 * <p>Typical use, in a test of the module (Surefire runs it with the module folder as working directory):
 *
 * <pre>
 * &#64;Test
 * void thePublicApiIsTheCommittedOne() {
 *     PublicApi.assertMatchesCommittedListing(Path.of("target/classes"), Path.of("api/public-api.txt"));
 * }
 * </pre>
 */
public final class PublicApi {

    /** Set to {@code true} to accept the current API: the check then rewrites the committed file. */
    static final String UPDATE_PROPERTY = "api.update";

    /** The fallback for builds whose test JVM does not receive {@value #UPDATE_PROPERTY}. */
    static final String UPDATE_VARIABLE = "API_UPDATE";

    private static final String INDENT = "    ";

    private static final Set<String> KINDS = Set.of("class", "interface", "enum", "record", "@interface");

    private PublicApi() {
    }

    /**
     * The listing of all the public API compiled into {@code classesDirectory} (a {@code target/classes}), one
     * line per type and per member, each line ending with a newline.
     *
     * @throws IllegalArgumentException if {@code classesDirectory} is not a directory: an empty listing of a
     *     mistyped path must not be committed as the API
     * @throws IllegalStateException if a class cannot be loaded or reflected on, for instance because a
     *     dependency of its signatures is not on the class path
     */
    public static String listing(Path classesDirectory) {
        return listing(classesDirectory, null);
    }

    /**
     * Like {@link #listing(Path)}, restricted to the classes of package {@code packagePrefix} and its
     * subpackages; {@code null} or empty means all.
     *
     * @throws IllegalArgumentException if {@code classesDirectory} is not a directory
     * @throws IllegalStateException if a class cannot be loaded or reflected on
     */
    public static String listing(Path classesDirectory, @Nullable String packagePrefix) {
        if (!Files.isDirectory(classesDirectory)) {
            throw new IllegalArgumentException("Not a directory of compiled classes: "
                    + classesDirectory.toAbsolutePath());
        }
        String prefix = packagePrefix == null || packagePrefix.isEmpty() ? ""
                : packagePrefix.endsWith(".") ? packagePrefix : packagePrefix + ".";
        List<String> classNames = classNames(classesDirectory).stream()
                .filter(name -> name.startsWith(prefix))
                .toList();
        // Parent first: classes already on the test's class path are the very same Class objects; a directory
        // that is not on it (another module's) still loads, its dependencies coming from the class path.
        ClassLoader parent = Thread.currentThread().getContextClassLoader();
        try (URLClassLoader loader = new URLClassLoader(new URL[] {toUrl(classesDirectory)},
                parent != null ? parent : PublicApi.class.getClassLoader())) {
            Map<String, Class<?>> types = new TreeMap<>();
            for (String className : classNames) {
                Class<?> type = load(className, loader);
                if (isExported(type)) {
                    types.put(typeName(type), type);
                }
            }
            StringBuilder text = new StringBuilder();
            for (Class<?> type : types.values()) {
                try {
                    text.append(header(type)).append('\n');
                    for (String member : members(type)) {
                        text.append(INDENT).append(member).append('\n');
                    }
                } catch (LinkageError | RuntimeException e) {
                    throw new IllegalStateException("Cannot read the API of " + type.getName() + ": " + e, e);
                }
            }
            return text.toString();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Fails unless {@code committedFile} holds exactly the {@link #listing(Path) listing} of
     * {@code classesDirectory}; with the system property {@code api.update} (or else the environment variable
     * {@code API_UPDATE}) set to {@code true} it (re)writes the file instead and passes.
     *
     * <p>The failure names the lines only in the code ({@code + }) and only in the file ({@code - }), each under
     * its type, and the command that accepts the change: {@code ./mvnw -pl <module> -am verify -Dapi.update=true},
     * the module being the folder two levels above {@code classesDirectory}.
     *
     * @throws AssertionError if the file is missing or differs from the listing and no update was asked for
     * @throws UncheckedIOException if the file cannot be read or written
     */
    public static void assertMatchesCommittedListing(Path classesDirectory, Path committedFile) {
        assertMatchesCommittedListing(classesDirectory, null, committedFile, updateRequested());
    }

    /** The check with the listing restricted to {@code packagePrefix} and the update flag given, for tests. */
    static void assertMatchesCommittedListing(Path classesDirectory, @Nullable String packagePrefix, Path committedFile,
            boolean update) {
        String current = listing(classesDirectory, packagePrefix);
        boolean exists = Files.isRegularFile(committedFile);
        String committed = exists ? read(committedFile) : "";
        if (exists && lines(committed).equals(lines(current))) {
            return;
        }
        if (update) {
            write(committedFile, current);
            return;
        }
        throw new AssertionError(failure(classesDirectory, committedFile, exists, committed, current));
    }

    static boolean updateRequested() {
        return Boolean.parseBoolean(System.getProperty(UPDATE_PROPERTY))
                || "true".equalsIgnoreCase(System.getenv(UPDATE_VARIABLE));
    }

    // ---------------------------------------------------------------------------------------------- classes

    private static List<String> classNames(Path classesDirectory) {
        try (Stream<Path> files = Files.walk(classesDirectory)) {
            return files
                    .filter(Files::isRegularFile)
                    .map(file -> classesDirectory.relativize(file).toString().replace('\\', '/'))
                    .filter(relative -> relative.endsWith(".class") && !relative.startsWith("META-INF/"))
                    .map(relative -> relative.substring(0, relative.length() - ".class".length()).replace('/', '.'))
                    .filter(name -> !name.endsWith("package-info") && !name.endsWith("module-info"))
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static URL toUrl(Path directory) {
        try {
            return directory.toAbsolutePath().toUri().toURL();
        } catch (MalformedURLException e) {
            throw new IllegalArgumentException(e);
        }
    }

    private static Class<?> load(String className, ClassLoader loader) {
        try {
            return Class.forName(className, false, loader);
        } catch (ClassNotFoundException | LinkageError e) {
            throw new IllegalStateException("Cannot load " + className + ": " + e, e);
        }
    }

    /** Whether code outside the package can name the type: the rule of JLS 6.6.1, subclasses counted in. */
    private static boolean isExported(Class<?> type) {
        if (type.isSynthetic() || type.isAnonymousClass() || type.isLocalClass()) {
            return false;
        }
        int modifiers = type.getModifiers();
        Class<?> declaring = type.getDeclaringClass();
        if (declaring == null) {
            return Modifier.isPublic(modifiers);
        }
        return (Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers)) && isExported(declaring);
    }

    // ---------------------------------------------------------------------------------------------- types

    private static String header(Class<?> type) {
        StringBuilder line = new StringBuilder(deprecation(type.getAnnotation(Deprecated.class)));
        int modifiers = type.getModifiers();
        line.append(visibility(modifiers));
        String kind = kind(type);
        boolean plainClass = kind.equals("class");
        boolean classOrInterface = plainClass || kind.equals("interface");
        if (plainClass && Modifier.isAbstract(modifiers)) {
            line.append("abstract ");
        }
        if (plainClass && type.getDeclaringClass() != null && Modifier.isStatic(modifiers)) {
            line.append("static ");
        }
        if (plainClass && Modifier.isFinal(modifiers)) {
            line.append("final ");
        }
        if (classOrInterface && type.isSealed()) {
            line.append("sealed ");
        } else if (classOrInterface && !Modifier.isFinal(modifiers) && hasSealedSupertype(type)) {
            line.append("non-sealed ");
        }
        line.append(kind).append(' ').append(typeName(type)).append(typeParameters(type.getTypeParameters()));

        if (plainClass && type.getGenericSuperclass() != null && type.getGenericSuperclass() != Object.class) {
            line.append(" extends ").append(typeName(type.getGenericSuperclass()));
        }
        List<String> interfaces = Arrays.stream(type.getGenericInterfaces())
                .filter(supertype -> !(type.isAnnotation() && supertype == java.lang.annotation.Annotation.class))
                .map(PublicApi::typeName)
                .toList();
        if (!interfaces.isEmpty()) {
            line.append(type.isInterface() ? " extends " : " implements ").append(String.join(", ", interfaces));
        }
        if (classOrInterface && type.isSealed()) {
            // Sorted: the order of a permits clause means nothing, the set of subclasses does (exhaustive switches).
            line.append(" permits ").append(Arrays.stream(type.getPermittedSubclasses())
                    .map(PublicApi::typeName).sorted().collect(Collectors.joining(", ")));
        }
        return line.toString();
    }

    private static String kind(Class<?> type) {
        if (type.isAnnotation()) {
            return "@interface";
        }
        if (type.isInterface()) {
            return "interface";
        }
        if (type.isEnum()) {
            return "enum";
        }
        return type.isRecord() ? "record" : "class";
    }

    private static boolean hasSealedSupertype(Class<?> type) {
        Class<?> superclass = type.getSuperclass();
        return (superclass != null && superclass.isSealed())
                || Arrays.stream(type.getInterfaces()).anyMatch(Class::isSealed);
    }

    // ---------------------------------------------------------------------------------------------- members

    private static List<String> members(Class<?> type) {
        List<String> members = new ArrayList<>();
        for (Field field : type.getDeclaredFields()) {
            if (isListed(field)) {
                members.add(field.isEnumConstant()
                        ? deprecation(field.getAnnotation(Deprecated.class)) + "enum constant " + field.getName()
                        : field(field));
            }
        }
        for (Constructor<?> constructor : type.getDeclaredConstructors()) {
            if (isListed(constructor)) {
                members.add(executable(constructor, type));
            }
        }
        for (Method method : type.getDeclaredMethods()) {
            if (isListed(method) && !method.isBridge() && !isImplicitEnumMethod(type, method)) {
                members.add(executable(method, type));
            }
        }
        members.sort(null);
        return members;
    }

    private static boolean isListed(Member member) {
        int modifiers = member.getModifiers();
        return !member.isSynthetic() && (Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers));
    }

    /** {@code values()} and {@code valueOf(String)}: every enum has them, no source can change them. */
    private static boolean isImplicitEnumMethod(Class<?> type, Method method) {
        if (!type.isEnum() || !Modifier.isStatic(method.getModifiers())) {
            return false;
        }
        Class<?>[] parameters = method.getParameterTypes();
        return (method.getName().equals("values") && parameters.length == 0)
                || (method.getName().equals("valueOf") && Arrays.equals(parameters, new Class<?>[] {String.class}));
    }

    private static String field(Field field) {
        int modifiers = field.getModifiers();
        StringBuilder line = new StringBuilder(deprecation(field.getAnnotation(Deprecated.class)));
        line.append(visibility(modifiers));
        if (Modifier.isStatic(modifiers)) {
            line.append("static ");
        }
        if (Modifier.isFinal(modifiers)) {
            line.append("final ");
        }
        return line.append(typeName(field.getGenericType())).append(' ').append(field.getName()).toString();
    }

    private static String executable(Executable executable, Class<?> type) {
        int modifiers = executable.getModifiers();
        StringBuilder line = new StringBuilder(deprecation(executable.getAnnotation(Deprecated.class)));
        line.append(visibility(modifiers));
        if (executable instanceof Method method) {
            if (Modifier.isAbstract(modifiers) && !type.isInterface()) {
                line.append("abstract ");
            }
            if (method.isDefault()) {
                line.append("default ");
            }
            if (Modifier.isStatic(modifiers)) {
                line.append("static ");
            }
            if (Modifier.isFinal(modifiers)) {
                line.append("final ");
            }
        }
        String typeParameters = typeParameters(executable.getTypeParameters());
        if (!typeParameters.isEmpty()) {
            line.append(typeParameters).append(' ');
        }
        if (executable instanceof Method method) {
            line.append(typeName(method.getGenericReturnType())).append(' ').append(method.getName());
        } else {
            line.append(type.getSimpleName());
        }
        StringJoiner parameters = new StringJoiner(", ", "(", ")");
        List<Type> parameterTypes = parameterTypes(executable, type);
        for (int i = 0; i < parameterTypes.size(); i++) {
            String parameter = typeName(parameterTypes.get(i));
            if (executable.isVarArgs() && i == parameterTypes.size() - 1 && parameter.endsWith("[]")) {
                parameter = parameter.substring(0, parameter.length() - 2) + "...";
            }
            parameters.add(parameter);
        }
        line.append(parameters);
        Type[] exceptions = executable.getGenericExceptionTypes();
        if (exceptions.length > 0) {
            line.append(" throws ").append(Arrays.stream(exceptions).map(PublicApi::typeName)
                    .collect(Collectors.joining(", ")));
        }
        return line.toString();
    }

    /**
     * The parameters as the source declares them. A constructor of an inner (non-static) class also takes the
     * enclosing instance, and reflection includes it unless the constructor has a generic signature: it is
     * dropped so that making a constructor generic does not read as a change of its parameters.
     */
    private static List<Type> parameterTypes(Executable executable, Class<?> type) {
        List<Type> types = Arrays.asList(executable.getGenericParameterTypes());
        boolean inner = type.isMemberClass() && !Modifier.isStatic(type.getModifiers());
        if (executable instanceof Constructor<?> && inner && types.size() == executable.getParameterCount()
                && !types.isEmpty() && types.get(0) == type.getDeclaringClass()) {
            return types.subList(1, types.size());
        }
        return types;
    }

    // ---------------------------------------------------------------------------------------------- names

    private static String visibility(int modifiers) {
        return Modifier.isPublic(modifiers) ? "public " : Modifier.isProtected(modifiers) ? "protected " : "";
    }

    private static String deprecation(Deprecated deprecated) {
        if (deprecated == null) {
            return "";
        }
        return deprecated.forRemoval() ? "@Deprecated(forRemoval = true) " : "@Deprecated ";
    }

    private static String typeParameters(TypeVariable<?>[] variables) {
        if (variables.length == 0) {
            return "";
        }
        StringJoiner joined = new StringJoiner(", ", "<", ">");
        for (TypeVariable<?> variable : variables) {
            Type[] bounds = variable.getBounds();
            boolean unbounded = bounds.length == 0 || (bounds.length == 1 && bounds[0] == Object.class);
            joined.add(unbounded ? variable.getName() : variable.getName() + " extends "
                    + Arrays.stream(bounds).map(PublicApi::typeName).collect(Collectors.joining(" & ")));
        }
        return joined.toString();
    }

    /** As {@link Type#getTypeName()}, but with nested types named {@code Outer.Inner} as in source. */
    static String typeName(Type type) {
        if (type instanceof Class<?> plain) {
            if (plain.isArray()) {
                return typeName(plain.getComponentType()) + "[]";
            }
            String canonical = plain.getCanonicalName();
            return canonical != null ? canonical : plain.getName();
        }
        if (type instanceof ParameterizedType parameterized) {
            Class<?> raw = (Class<?>) parameterized.getRawType();
            StringBuilder name = new StringBuilder();
            if (parameterized.getOwnerType() instanceof ParameterizedType owner) {
                name.append(typeName(owner)).append('.').append(raw.getSimpleName());
            } else {
                name.append(typeName(raw));
            }
            Type[] arguments = parameterized.getActualTypeArguments();
            if (arguments.length > 0) {
                name.append(Arrays.stream(arguments).map(PublicApi::typeName)
                        .collect(Collectors.joining(", ", "<", ">")));
            }
            return name.toString();
        }
        if (type instanceof WildcardType wildcard) {
            if (wildcard.getLowerBounds().length > 0) {
                return "? super " + typeName(wildcard.getLowerBounds()[0]);
            }
            Type[] upper = wildcard.getUpperBounds();
            return upper.length == 0 || upper[0] == Object.class ? "?" : "? extends " + typeName(upper[0]);
        }
        if (type instanceof GenericArrayType array) {
            return typeName(array.getGenericComponentType()) + "[]";
        }
        if (type instanceof TypeVariable<?> variable) {
            return variable.getName();
        }
        return type.getTypeName();
    }

    // ---------------------------------------------------------------------------------------------- the check

    private static String failure(Path classesDirectory, Path committedFile, boolean exists, String committed,
            String current) {
        Path module = moduleDirectory(classesDirectory);
        String moduleName = module != null && module.getFileName() != null ? module.getFileName().toString()
                : "<module>";
        String file = displayed(committedFile, module);
        StringBuilder message = new StringBuilder();
        if (exists) {
            message.append("The public API of ").append(moduleName).append(" differs from the committed listing ")
                    .append(file).append(".\n");
        } else {
            message.append("The public API of ").append(moduleName).append(" has no committed listing: ")
                    .append(file).append(" is missing.\n");
        }
        String diff = diff(committed, current);
        if (diff.isEmpty()) {
            message.append("The same lines, in another order or with other blank lines.\n");
        } else {
            message.append("Lines only in the code are marked +, lines only in the file -:\n").append(diff);
        }
        message.append("If the change to the public API is intended, run: ./mvnw -pl ").append(moduleName)
                .append(" -am verify -Dapi.update=true and commit ").append(file);
        return message.toString();
    }

    private static @Nullable Path moduleDirectory(Path classesDirectory) {
        Path target = classesDirectory.toAbsolutePath().normalize().getParent();
        return target != null ? target.getParent() : null;
    }

    /** The file as the command to run sees it: from the project root, the folder above the module's. */
    private static String displayed(Path committedFile, @Nullable Path module) {
        Path file = committedFile.toAbsolutePath().normalize();
        Path root = module != null ? module.getParent() : null;
        return root != null && file.startsWith(root) ? root.relativize(file).toString() : committedFile.toString();
    }

    /**
     * Member lines are compared within their type, found by its name: a member that moves from one type to
     * another shows, and a changed header ({@code final} added, say) shows as that one line, not as every member
     * of the type removed and added again.
     */
    private static String diff(String committed, String current) {
        Map<String, TypeLines> before = byType(committed);
        Map<String, TypeLines> after = byType(current);
        Set<String> names = new LinkedHashSet<>(after.keySet());
        names.addAll(before.keySet());
        StringBuilder diff = new StringBuilder();
        for (String name : names) {
            TypeLines old = before.get(name);
            TypeLines now = after.get(name);
            Set<String> added = new LinkedHashSet<>(now != null ? now.members : Set.of());
            Set<String> removed = new LinkedHashSet<>(old != null ? old.members : Set.of());
            if (old != null) {
                added.removeAll(old.members);
            }
            if (now != null) {
                removed.removeAll(now.members);
            }
            boolean headerChanged = old == null || now == null || !old.header.equals(now.header);
            if (!headerChanged && added.isEmpty() && removed.isEmpty()) {
                continue;
            }
            if (!headerChanged && now != null) {
                diff.append("  ").append(now.header).append('\n');
            }
            if (old != null && headerChanged) {
                diff.append("- ").append(old.header).append('\n');
            }
            if (now != null && headerChanged) {
                diff.append("+ ").append(now.header).append('\n');
            }
            removed.forEach(member -> diff.append("- ").append(INDENT).append(member).append('\n'));
            added.forEach(member -> diff.append("+ ").append(INDENT).append(member).append('\n'));
        }
        return diff.toString();
    }

    private record TypeLines(String header, Set<String> members) {
    }

    private static Map<String, TypeLines> byType(String listing) {
        Map<String, TypeLines> types = new LinkedHashMap<>();
        TypeLines type = null;
        for (String line : lines(listing)) {
            if (line.isBlank()) {
                continue;
            }
            if (!Character.isWhitespace(line.charAt(0)) || type == null) {
                String header = line.strip();
                type = types.computeIfAbsent(typeNameInHeader(header),
                        name -> new TypeLines(header, new LinkedHashSet<>()));
            } else {
                type.members.add(line.strip());
            }
        }
        return types;
    }

    private static String typeNameInHeader(String header) {
        String[] words = header.split(" ");
        for (int i = 0; i < words.length - 1; i++) {
            if (KINDS.contains(words[i])) {
                int typeParameters = words[i + 1].indexOf('<');
                return typeParameters < 0 ? words[i + 1] : words[i + 1].substring(0, typeParameters);
            }
        }
        return header;
    }

    /** The lines without line terminators ({@code \r\n} too, for a file checked out on Windows) or trailing blanks. */
    private static List<String> lines(String text) {
        List<String> lines = new ArrayList<>(text.lines().toList());
        while (!lines.isEmpty() && lines.get(lines.size() - 1).isBlank()) {
            lines.remove(lines.size() - 1);
        }
        return lines;
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void write(Path file, String text) {
        try {
            Path parent = file.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            Files.writeString(file, text, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
