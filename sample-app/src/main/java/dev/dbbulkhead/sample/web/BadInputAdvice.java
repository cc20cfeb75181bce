package dev.dbbulkhead.sample.web;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.validation.FieldError;
import org.springframework.web.bind.MethodArgumentNotValidException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.method.annotation.MethodArgumentTypeMismatchException;
import tools.jackson.core.JacksonException;

/**
 * Bad input answers 400 with a problem detail that names each bad field, before it reaches a gate or the
 * database (whose CHECK constraints would otherwise turn it into a 500). Only these exceptions are handled here:
 * rejections keep db-bulkhead's own 503 answer.
 */
@RestControllerAdvice
class BadInputAdvice {

    @ExceptionHandler
    ProblemDetail invalidBody(MethodArgumentNotValidException invalid) {
        return badInput(invalid.getBindingResult().getFieldErrors().stream().collect(Collectors.toMap(
                FieldError::getField, error -> String.valueOf(error.getDefaultMessage()), (first, next) -> first,
                LinkedHashMap::new)));
    }

    @ExceptionHandler
    ProblemDetail unreadableBody(HttpMessageNotReadableException unreadable) {
        // Jackson knows which field held a value of the wrong type; a body that is no JSON at all names none.
        if (unreadable.getMostSpecificCause() instanceof JacksonException jackson && !jackson.getPath().isEmpty()
                && jackson.getPath().getLast().getPropertyName() != null) {
            return badInput(Map.of(jackson.getPath().getLast().getPropertyName(), "has a value of the wrong type"));
        }
        return badInput(Map.of("body", "is not the JSON this endpoint reads"));
    }

    @ExceptionHandler
    ProblemDetail mistypedParameter(MethodArgumentTypeMismatchException mistyped) {
        String type = mistyped.getRequiredType() == null ? "value" : mistyped.getRequiredType().getSimpleName();
        return badInput(Map.of(mistyped.getName(), "must be a " + type));
    }

    private static ProblemDetail badInput(Map<String, String> errors) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, errors.entrySet().stream()
                .map(error -> error.getKey() + " " + error.getValue()).collect(Collectors.joining("; ")));
        problem.setTitle("Invalid input");
        problem.setProperty("errors", errors);
        return problem;
    }
}
