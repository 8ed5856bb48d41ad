package io.nsc.parquet.filter;

import io.trino.spi.block.Block;
import io.trino.spi.predicate.Domain;
import io.trino.spi.predicate.ValueSet;
import io.trino.spi.type.Type;

import static io.trino.spi.type.TypeUtils.readNativeValue;
import static java.util.Objects.requireNonNull;

/**
 * Any type: asks the domain itself, so the answer is by definition the one Trino gives when it
 * evaluates the same domain (NaN, -0.0, char padding and collation included).
 */
final class DomainColumnFilter
        implements ColumnFilter
{
    private final Type type;
    private final boolean nullAllowed;
    private final ValueSet values;

    DomainColumnFilter(Domain domain)
    {
        requireNonNull(domain, "domain is null");
        this.type = domain.getType();
        this.nullAllowed = domain.isNullAllowed();
        this.values = domain.getValues();
    }

    @Override
    public int filter(Block block, int[] positions, int count)
    {
        int passed = 0;
        for (int i = 0; i < count; i++) {
            int position = positions[i];
            boolean matches = block.isNull(position) ? nullAllowed : values.containsValue(readNativeValue(type, block, position));
            if (matches) {
                positions[passed++] = position;
            }
        }
        return passed;
    }
}
