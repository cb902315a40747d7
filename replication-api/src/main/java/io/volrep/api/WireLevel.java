package io.volrep.api;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a public type or member that exposes the spec's generated wire messages ({@code io.volrep.proto.*}): an
 * escape hatch for wire-level work (conformance checks that send what a typed API refuses to build), outside the
 * typed API. The client's and the SPI's exported signatures never use generated types; the build checks that
 * every other exported signature that does carries this mark.
 *
 * <pre>{@code
 * @WireLevel
 * public Outcome heal(NodeHealerRequest request) { ... }
 * }</pre>
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD, ElementType.CONSTRUCTOR, ElementType.FIELD})
public @interface WireLevel {}
