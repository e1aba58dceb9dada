package io.tapline.project;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

import java.time.OffsetDateTime;

/**
 * One applied meltano.yml import; the newest is the project the service holds. The YAML text is
 * not stored (it may hold secrets): only the environments and the sanitised parts of the document
 * the export gives back.
 */
@Entity
@Table(name = "project_import")
public class ProjectImport {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    public Long id;

    @Column(name = "imported_at", nullable = false)
    public OffsetDateTime importedAt;

    /** The environment the project was imported for. */
    @Column(nullable = false, length = 100)
    public String environment;

    /** {@code default_environment} of the document, or null. */
    @Column(name = "default_environment", length = 100)
    public String defaultEnvironment;

    /** JSON array of the names under {@code environments:}. */
    @Column(nullable = false)
    public String environments = "[]";

    /** JSON object: the sanitised parts of the document that are neither plugins nor schedules nor jobs. */
    @Column(nullable = false)
    public String document = "{}";

    /** JSON object: counts of created, updated and unchanged items and of unsupported keys. */
    @Column(nullable = false)
    public String summary = "{}";
}
