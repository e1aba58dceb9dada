package io.tapline.common.security;

/**
 * The three roles of the API, read from the token's {@code groups} claim (or the claim named by
 * {@code smallrye.jwt.path.groups}). Each role includes the ones below it: the resources list
 * every role that may call an operation, so an {@code admin} token can do what an
 * {@code operator} or {@code viewer} token can.
 * <ul>
 *   <li>{@link #VIEWER}: every {@code GET} under {@code /api/v1} except the audit trail;</li>
 *   <li>{@link #OPERATOR}: trigger and cancel runs, edit state and bookmarks;</li>
 *   <li>{@link #ADMIN}: plugins, pipelines, clearing all state, state imports and directory
 *   transfers, the audit trail.</li>
 * </ul>
 */
public final class Roles {

    /** Read access. */
    public static final String VIEWER = "viewer";
    /** Runs and state edits. */
    public static final String OPERATOR = "operator";
    /** Configuration and bulk state operations. */
    public static final String ADMIN = "admin";

    private Roles() {
    }
}
