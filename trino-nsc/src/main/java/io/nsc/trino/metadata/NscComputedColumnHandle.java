package io.nsc.trino.metadata;

import com.google.common.collect.ImmutableList;
import com.google.common.hash.Hashing;
import com.google.protobuf.InvalidProtocolBufferException;
import io.nsc.parquet.expression.ValueExpression;
import io.nsc.parquet.wire.RowExpressionCodec;
import io.nsc.protocol.proto.ScanValue;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.connector.ColumnMetadata;
import io.trino.spi.type.Type;

import java.util.Base64;
import java.util.List;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.collect.ImmutableList.toImmutableList;
import static java.util.Objects.requireNonNull;

/**
 * A value the scan computes from table columns (arithmetic and casts, see
 * {@link ValueExpression}), which a projection or an aggregate argument of the query asked for:
 * storage nodes compute it next to the data, workers for the splits they decode.
 *
 * @param inputs the table columns the expression reads
 * @param expression the expression over the columns' ordinals, in its wire form, base64
 */
public record NscComputedColumnHandle(String name, Type type, List<NscColumnHandle> inputs, String expression)
        implements ColumnHandle
{
    private static final String NAME_PREFIX = "_nsc_computed_";

    public NscComputedColumnHandle
    {
        requireNonNull(name, "name is null");
        requireNonNull(type, "type is null");
        inputs = ImmutableList.copyOf(requireNonNull(inputs, "inputs is null"));
        requireNonNull(expression, "expression is null");
    }

    /**
     * @param expression over the ordinals of {@code tableColumns}
     */
    public static NscComputedColumnHandle create(ValueExpression expression, List<NscColumnHandle> tableColumns)
    {
        List<NscColumnHandle> inputs = expression.columns().stream()
                .map(ordinal -> NscColumnHandle.byOrdinal(tableColumns, ordinal))
                .collect(toImmutableList());
        byte[] wire = RowExpressionCodec.encode(expression).toByteArray();
        // one name per expression, so that the same expression asked for twice is one column
        String name = NAME_PREFIX + Hashing.sha256().hashBytes(wire).toString().substring(0, 16);
        return new NscComputedColumnHandle(name, expression.type(), inputs, Base64.getEncoder().encodeToString(wire));
    }

    /** The expression over the table's column ordinals. */
    public ValueExpression value()
    {
        try {
            ValueExpression value = RowExpressionCodec.decode(ScanValue.parseFrom(Base64.getDecoder().decode(expression)), ordinal -> NscColumnHandle.byOrdinal(inputs, ordinal).type());
            checkArgument(value.type().equals(type), "expression of type %s in a column of type %s", value.type(), type);
            return value;
        }
        catch (InvalidProtocolBufferException e) {
            throw new IllegalArgumentException("malformed computed column " + name, e);
        }
    }

    public ColumnMetadata toColumnMetadata()
    {
        return ColumnMetadata.builder()
                .setName(name)
                .setType(type)
                .setHidden(true)
                .build();
    }

    @Override
    public String toString()
    {
        return value().format(ordinal -> NscColumnHandle.byOrdinal(inputs, ordinal).name()) + ":" + type;
    }
}
