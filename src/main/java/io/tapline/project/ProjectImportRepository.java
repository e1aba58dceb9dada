package io.tapline.project;

import io.quarkus.hibernate.orm.panache.PanacheRepository;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.Optional;

/** Queries on {@link ProjectImport}. */
@ApplicationScoped
public class ProjectImportRepository implements PanacheRepository<ProjectImport> {

    /** The newest import, if any. */
    public Optional<ProjectImport> latest() {
        return find("order by id desc").firstResultOptional();
    }
}
