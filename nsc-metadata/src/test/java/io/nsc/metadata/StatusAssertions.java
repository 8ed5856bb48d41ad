package io.nsc.metadata;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

public final class StatusAssertions
{
    private StatusAssertions() {}

    /** Asserts that {@code call} fails with the gRPC status {@code code} and exactly {@code description}. */
    public static void assertStatus(ThrowingCallable call, Status.Code code, String description)
    {
        assertThatThrownBy(call)
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                    if (e.getStatus().getCode() != code || !description.equals(e.getStatus().getDescription())) {
                        throw new AssertionError("Expected %s \"%s\" but got %s \"%s\"".formatted(code, description, e.getStatus().getCode(), e.getStatus().getDescription()));
                    }
                });
    }

    /** Asserts that {@code call} fails with the gRPC status {@code code} and a description containing {@code text}. */
    public static void assertStatusContains(ThrowingCallable call, Status.Code code, String text)
    {
        assertThatThrownBy(call)
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                    String description = e.getStatus().getDescription();
                    if (e.getStatus().getCode() != code || description == null || !description.contains(text)) {
                        throw new AssertionError("Expected %s containing \"%s\" but got %s \"%s\"".formatted(code, text, e.getStatus().getCode(), description));
                    }
                });
    }
}
