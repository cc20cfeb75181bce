import org.springframework.data.jpa.repository.JpaRepository;

/** Stands for the application's own Spring Data repository. */
interface InvoiceRepository extends JpaRepository<Invoice, Long> {
}
