int softmax(const float *restrict X, float *restrict Y, int64_t M, int64_t N)
{
	if (!X || !Y)
		return EIN_AOT_ERROR_NULL;
	if (!((M >= 1) && (N >= 1)))
		return EIN_AOT_ERROR_SIZE;
	const int64_t ext_X_1 = N;
	const int64_t ext_Y_1 = N;
	const int64_t ext_mx_0 = M;
	const int64_t ext_e_0 = M;
	const int64_t ext_e_1 = N;
	const int64_t ext_s_0 = M;
	float *mx = malloc(sizeof(float) * ext_mx_0);
	float *e = malloc(sizeof(float) * ext_e_0 * ext_e_1);
	float *s = malloc(sizeof(float) * ext_s_0);
	for (int64_t c0 = 0; (c0 < M); c0 += 1) {
		mx[c0] = ((float) -INFINITY);
	}
	for (int64_t c0 = 0; (c0 < M); c0 += 1) {
		for (int64_t c1 = 0; (c1 < N); c1 += 1) {
			mx[c0] = fmaxf(mx[c0], X[(c0 * ext_X_1 + c1)]);
		}
	}
	for (int64_t c0 = 0; (c0 < M); c0 += 1) {
		for (int64_t c1 = 0; (c1 < N); c1 += 1) {
			e[(c0 * ext_e_1 + c1)] = expf((X[(c0 * ext_X_1 + c1)] - mx[c0]));
		}
	}
	for (int64_t c0 = 0; (c0 < M); c0 += 1) {
		s[c0] = ((float) 0);
	}
	for (int64_t c0 = 0; (c0 < M); c0 += 1) {
		for (int64_t c1 = 0; (c1 < N); c1 += 1) {
			s[c0] = (s[c0] + e[(c0 * ext_e_1 + c1)]);
		}
	}
	for (int64_t c0 = 0; (c0 < M); c0 += 1) {
		for (int64_t c1 = 0; (c1 < N); c1 += 1) {
			Y[(c0 * ext_Y_1 + c1)] = (e[(c0 * ext_e_1 + c1)] / s[c0]);
		}
	}
	free(mx);
	free(e);
	free(s);
	return EIN_AOT_OK;
}

