package dev.dbbulkhead.jdbc.ungated;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The frame that borrowed a connection outside every gate: the nearest frame of the application's own packages
 * ({@link CallerRules#withApplicationPackages}); or, when none is within reach, a guess: the nearest frame of no
 * known library, else the nearest frame below the pool outside the JDK and the test runners.
 *
 * @param className   the class, as the stack names it
 * @param methodName  the method
 * @param fileName    its source file; null when the class carries none
 * @param lineNumber  its line; negative when unknown
 * @param application whether it lies in the application's packages; false when it is a guess
 */
public record CallSite(String className, String methodName, @Nullable String fileName, int lineNumber,
                       boolean application) {

    public CallSite {
        Objects.requireNonNull(className, "className");
        Objects.requireNonNull(methodName, "methodName");
    }

    static CallSite of(StackWalker.StackFrame frame, boolean application) {
        return new CallSite(frame.getClassName(), frame.getMethodName(), frame.getFileName(), frame.getLineNumber(),
                application);
    }

    /** {@code com.example.OwnerController.findOwner(OwnerController.java:57)}, as a stack trace prints it. */
    @Override
    public String toString() {
        String location = fileName == null ? "Unknown Source" : lineNumber < 0 ? fileName : fileName + ":" + lineNumber;
        return className + "." + methodName + "(" + location + ")";
    }
}
