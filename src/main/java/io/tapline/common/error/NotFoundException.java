package io.tapline.common.error;

/** The thing asked for does not exist (a pipeline, plugin, run, state ID, webhook...). Maps to 404. */
public final class NotFoundException extends DomainException {

    private static final long serialVersionUID = 1L;

    /**
     * @param kind what was looked for, capitalised for the start of a sentence, e.g. {@code "Pipeline"}
     * @param id its name or id as the caller gave it
     */
    public NotFoundException(String kind, String id) {
        super(kind + " '" + id + "' does not exist.");
    }

    /**
     * @param detail a whole sentence, for cases the kind-and-id form does not fit
     */
    public NotFoundException(String detail) {
        super(detail);
    }
}
