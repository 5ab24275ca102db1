// esbuild's text loader turns shipped .yaml files into strings inside main.js.
declare module "*.yaml" {
	const text: string;
	export default text;
}
