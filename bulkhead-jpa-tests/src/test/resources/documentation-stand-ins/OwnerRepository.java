import org.springframework.data.jpa.repository.JpaRepository;

/** Stands for the application's own Spring Data repository (the Spring MVC how-to declares it gated). */
interface OwnerRepository extends JpaRepository<Owner, Integer> {
}
