-- Excerpt (the views of the tables in rocpd_tables_v3.sql) of ROCm/rocprofiler-sdk
-- @ ad31aebb5eb882f23601aedee99ef395eef5e72a : source/share/rocprofiler-sdk-rocpd/rocpd_views.sql
-- (MIT license, Copyright (c) 2023 Advanced Micro Devices, Inc.: LICENSE.rocprofiler-sdk).
-- The un-suffixed view of each GUID-suffixed table, as rocprofv3 writes them.
CREATE VIEW IF NOT EXISTS
    `rocpd_metadata` AS
SELECT
    *
FROM
    `rocpd_metadata{{uuid}}`;

CREATE VIEW IF NOT EXISTS
    `rocpd_string` AS
SELECT
    *
FROM
    `rocpd_string{{uuid}}`;

CREATE VIEW IF NOT EXISTS
    `rocpd_info_node` AS
SELECT
    *
FROM
    `rocpd_info_node{{uuid}}`;

CREATE VIEW IF NOT EXISTS
    `rocpd_info_process` AS
SELECT
    *
FROM
    `rocpd_info_process{{uuid}}`;

CREATE VIEW IF NOT EXISTS
    `rocpd_info_thread` AS
SELECT
    *
FROM
    `rocpd_info_thread{{uuid}}`;

CREATE VIEW IF NOT EXISTS
    `rocpd_info_agent` AS
SELECT
    *
FROM
    `rocpd_info_agent{{uuid}}`;

CREATE VIEW IF NOT EXISTS
    `rocpd_info_pmc` AS
SELECT
    *
FROM
    `rocpd_info_pmc{{uuid}}`;

CREATE VIEW IF NOT EXISTS
    `rocpd_info_code_object` AS
SELECT
    *
FROM
    `rocpd_info_code_object{{uuid}}`;

CREATE VIEW IF NOT EXISTS
    `rocpd_info_kernel_symbol` AS
SELECT
    *
FROM
    `rocpd_info_kernel_symbol{{uuid}}`;

CREATE VIEW IF NOT EXISTS
    `rocpd_event` AS
SELECT
    *
FROM
    `rocpd_event{{uuid}}`;

CREATE VIEW IF NOT EXISTS
    `rocpd_pmc_event` AS
SELECT
    *
FROM
    `rocpd_pmc_event{{uuid}}`;

CREATE VIEW IF NOT EXISTS
    `rocpd_kernel_dispatch` AS
SELECT
    *
FROM
    `rocpd_kernel_dispatch{{uuid}}`;
