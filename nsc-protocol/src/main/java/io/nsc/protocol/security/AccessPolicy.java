package io.nsc.protocol.security;

import com.google.common.collect.ImmutableMap;
import com.google.common.collect.ImmutableSet;
import io.grpc.MethodDescriptor;
import io.grpc.ServiceDescriptor;
import io.grpc.health.v1.HealthGrpc;

import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/**
 * Which roles may call which gRPC method of a service. Methods the policy does not name are
 * refused to everyone: a new RPC stays closed until someone decides who may call it.
 */
public final class AccessPolicy
{
    private final Map<String, Set<ComponentRole>> rolesByMethod;

    private AccessPolicy(Map<String, Set<ComponentRole>> rolesByMethod)
    {
        this.rolesByMethod = ImmutableMap.copyOf(requireNonNull(rolesByMethod, "rolesByMethod is null"));
    }

    public static Builder builder()
    {
        return new Builder();
    }

    /** The roles allowed to call the method, or empty when nobody may. */
    public Optional<Set<ComponentRole>> allowedRoles(String fullMethodName)
    {
        return Optional.ofNullable(rolesByMethod.get(fullMethodName));
    }

    public static final class Builder
    {
        private final ImmutableMap.Builder<String, Set<ComponentRole>> rolesByMethod = ImmutableMap.builder();

        private Builder()
        {
            // every endpoint serves the standard health service, and anyone the CA certified may probe it
            allowAll(HealthGrpc.getServiceDescriptor());
        }

        public Builder allow(MethodDescriptor<?, ?> method, ComponentRole first, ComponentRole... rest)
        {
            rolesByMethod.put(method.getFullMethodName(), ImmutableSet.<ComponentRole>builder().add(first).add(rest).build());
            return this;
        }

        /** Every authenticated role may call every method of the service. */
        public Builder allowAll(ServiceDescriptor service)
        {
            for (MethodDescriptor<?, ?> method : service.getMethods()) {
                rolesByMethod.put(method.getFullMethodName(), ImmutableSet.copyOf(ComponentRole.values()));
            }
            return this;
        }

        /** Fails unless every method of the service has a rule: the policy of a service is complete. */
        public Builder requireComplete(ServiceDescriptor service)
        {
            Map<String, Set<ComponentRole>> rules = rolesByMethod.buildKeepingLast();
            for (MethodDescriptor<?, ?> method : service.getMethods()) {
                checkArgument(rules.containsKey(method.getFullMethodName()), "No access rule for %s", method.getFullMethodName());
            }
            return this;
        }

        public AccessPolicy build()
        {
            return new AccessPolicy(rolesByMethod.buildOrThrow());
        }
    }
}
