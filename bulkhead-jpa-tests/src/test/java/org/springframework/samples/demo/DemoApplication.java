package org.springframework.samples.demo;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * An application in a package under {@code org.springframework}, as Spring PetClinic's is: Spring Data JPA, a
 * {@code @ModelAttribute} loader, a formatter that loads and a controller method that queries, none of them gated.
 * Its own frames lie in a library's package, and must still be the ones the ungated-work report names.
 */
@SpringBootApplication
public class DemoApplication {
}
