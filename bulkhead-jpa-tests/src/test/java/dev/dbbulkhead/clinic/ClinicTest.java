package dev.dbbulkhead.clinic;

import dev.dbbulkhead.jpa.JpaTestDatabase;
import dev.dbbulkhead.transaction.BulkheadRegistry;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.context.junit.jupiter.SpringExtension;

/**
 * The clinic served on a random port with its own configuration ({@code clinic/application.yml}, instead of the
 * module's), its tests in {@code db.bulkhead.ungated.mode=fail}, as docs/reference/ungated-work.md advises: any
 * connection borrowed outside every gate fails the request that borrowed it. Each test makes the owner it uses.
 */
@SpringBootTest(classes = ClinicApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"spring.config.location=classpath:/clinic/application.yml", "db.bulkhead.ungated.mode=fail"})
// Declared here although @SpringBootTest declares it too: Boot's test scan filter then takes this for a test class
// and leaves the nested beans of the clinic's tests out of the clinic's component scan.
@ExtendWith(SpringExtension.class)
@Timeout(value = 3, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
abstract class ClinicTest {

    /** The {@code ApplicationName} of the clinic's pool, by which the server lists its sessions. */
    static final String APPLICATION_NAME = "petclinic";

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        JpaTestDatabase.register(registry);
    }

    @Value("${local.server.port}")
    int port;

    @Autowired
    BulkheadRegistry registry;

    @Autowired
    OwnerRepository owners;

    @Autowired
    PetTypeRepository types;

    ClinicClient client;

    @BeforeEach
    void client() {
        client = new ClinicClient(port);
    }

    /** Σ B: the execution permits of every workload, all on the clinic's one pool. */
    int gated() {
        return registry.names().stream().mapToInt(name -> registry.template(name).gate().config().maxConcurrent())
                .sum();
    }

    /** A new owner with one cat, saved through the gated repository as the application saves them. */
    Owner ownerWithPet(String lastName, String petName) {
        Owner owner = new Owner("George", lastName, "Madison");
        Pet pet = new Pet();
        pet.setName(petName);
        pet.setType(types.findPetTypes().stream().filter(type -> type.getName().equals("cat")).findFirst()
                .orElseThrow());
        owner.addPet(pet);
        return owners.save(owner);
    }

    /** The first column of the first row of {@code sql}, read by the test on a connection of its own. */
    static String onTheServer(String sql) {
        return JpaTestDatabase.sideQuery(sql);
    }
}
