-- TPC-H Q15: top supplier
WITH revenue0 AS (
    SELECT
        l_suppkey AS supplier_no,
        -- rounded to the 4 decimals the exact value has: the two uses of revenue0 may add the same
        -- doubles in different orders, and equality must not hinge on the last bit
        round(sum(l_extendedprice * (1 - l_discount)), 4) AS total_revenue
    FROM
        lineitem
    WHERE
        l_shipdate >= DATE '1996-01-01'
        AND l_shipdate < DATE '1996-01-01' + INTERVAL '3' MONTH
    GROUP BY
        l_suppkey
)
SELECT
    s_suppkey,
    s_name,
    s_address,
    s_phone,
    total_revenue
FROM
    supplier,
    revenue0
WHERE
    s_suppkey = supplier_no
    AND total_revenue = (
        SELECT
            max(total_revenue)
        FROM
            revenue0
    )
ORDER BY
    s_suppkey
